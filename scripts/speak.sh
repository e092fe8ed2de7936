# Sourced by the clip scripts. speak VOICE SPEED SENTENCE OUT.wav: festival's ked and kal (diphone) and slt (HTS)
# voices by those names; flite's awb and rms (clustergen) by theirs; festival's Italian pc and lp, Finnish lj and mv
# and Czech dita and ph voices reading English as a speaker of their language would spell it out (a heavy accent);
# any other VOICE as an espeak-ng voice at SPEED words a minute (festival and flite keep their own pace).
speak() {
    case $1 in
        ked|kal|slt|pc|lp|lj|mv|dita|ph)
            local voice=voice_$1_diphone
            case $1 in
                slt) voice=voice_cmu_us_slt_arctic_hts ;;
                lj) voice=voice_suo_fi_lj_diphone ;;
                mv) voice=voice_hy_fi_mv_diphone ;;
                dita|ph) voice=voice_czech_$1 ;;
            esac
            printf '%s\n' "$3" >"$4.txt"
            text2wave -eval "($voice)" "$4.txt" -o "$4"
            rm -f "$4.txt" ;;
        awb|rms) flite -voice "$1" -o "$4" -t "$3" ;;
        *) espeak-ng -v "$1" -s "$2" -w "$4" "$3" ;;
    esac
}
