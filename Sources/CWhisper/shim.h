// whisper.cpp 1.8.5 and its Silero VAD, built by `make setup` (scripts/hearing-parts.sh) into .build/hearing.
#include <whisper.h>
