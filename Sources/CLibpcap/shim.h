#ifndef SOCKCTL_CLIBPCAP_SHIM_H
#define SOCKCTL_CLIBPCAP_SHIM_H
#include <pcap/pcap.h>
#endif
