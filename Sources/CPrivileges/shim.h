#ifndef SOCKCTL_CPRIVILEGES_SHIM_H
#define SOCKCTL_CPRIVILEGES_SHIM_H
// What capture's privilege drop needs and the Glibc module does not bring: setresuid (a GNU
// extension) and the capability system calls, which glibc exports without declaring them
// (libcap's <sys/capability.h> would; it is not a dependency). Capture/Live/PrivilegeDrop.swift.
#ifdef __linux__
#include <sys/types.h>
#include <linux/capability.h>
int setresuid(uid_t ruid, uid_t euid, uid_t suid);
int capset(cap_user_header_t header, const cap_user_data_t data);
int capget(cap_user_header_t header, cap_user_data_t data);
#include <sys/prctl.h>
// prctl is variadic (Swift cannot call it): PR_SET_KEEPCAPS, so a rotating capture keeps
// CAP_DAC_OVERRIDE permitted across its change of user id, as tcpdump -C/-G does.
static inline int sockctl_set_keep_capabilities(int keep) { return prctl(PR_SET_KEEPCAPS, keep, 0, 0, 0); }
#endif
#endif
