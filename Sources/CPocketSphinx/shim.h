#include <pocketsphinx.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/err.h>
#include <sphinxbase/fe.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/cmn.h>
