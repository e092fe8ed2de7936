#ifndef BOXVOICE_BUILD_INFO_H
#define BOXVOICE_BUILD_INFO_H
/* The git commit `make` builds into the binaries (-Xcc -DBOXVOICE_COMMIT=...); a plain `swift build` says "unknown".
   C, because SwiftPM can hand a value to the C compiler but not to Swift. */
const char *boxvoice_build_commit(void);
#endif
