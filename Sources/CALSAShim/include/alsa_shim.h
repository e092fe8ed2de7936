#ifndef BOXVOICE_ALSA_SHIM_H
#define BOXVOICE_ALSA_SHIM_H

/// Routes alsa-lib's diagnostic messages into a per-thread buffer instead of stderr,
/// so the Swift wrapper can put the library's own words into its typed errors.
void boxvoice_alsa_capture_messages(void);

/// The last message alsa-lib reported on this thread ("" when none), then forgets it.
const char *boxvoice_alsa_take_message(void);

#endif
