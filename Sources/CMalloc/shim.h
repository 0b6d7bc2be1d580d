// glibc's malloc tuning (mallopt), which the Glibc module does not bring: the engine fixes the
// size from which a buffer gets its own mapping (SocketEngine/Support/LargeBufferPolicy.swift).
#include <malloc.h>
