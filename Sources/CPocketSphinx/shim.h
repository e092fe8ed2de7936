#include <pocketsphinx.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/err.h>
