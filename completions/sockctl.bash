#!/bin/bash

__sockctl_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__sockctl_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__sockctl_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__sockctl_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_sockctl() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __sockctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    connect|listen|send|proxy|replay|loadtest|report|capture|help)
        # Offer subcommand argument completions
        "_sockctl_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'connect listen send proxy replay loadtest report capture help' -- "${cur}"))
        ;;
    esac
}

_sockctl_connect() {
    repeating_flags=()
    non_repeating_flags=(-4 -6 --binary --no-compression -k --insecure --verbose -v --hexdump -u --udp -z --check-ports --echo-messages -C --crlf --send-only --recv-only --no-shutdown --close-on-eof --version -h --help)
    repeating_options=(--resolve --subprotocol -H --header --pin)
    non_repeating_options=(--source --interface --connect-timeout --ping-interval --close-code --close-reason --max-message --origin --cafile --servername --cert --key --keylog --proxy --framing --max-frame --color -w --record -e --exec -c --sh-exec --idle-timeout --reconnect --reconnect-max-delay --reconnect-jitter --heartbeat --heartbeat-interval --heartbeat-misses)
    __sockctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--source')
        return
        ;;
    '--interface')
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--resolve')
        return
        ;;
    '--subprotocol')
        return
        ;;
    '--ping-interval')
        return
        ;;
    '--close-code')
        return
        ;;
    '--close-reason')
        return
        ;;
    '--max-message')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '--origin')
        return
        ;;
    '--cafile')
        return
        ;;
    '--servername')
        return
        ;;
    '--pin')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--keylog')
        return
        ;;
    '--proxy')
        return
        ;;
    '--framing')
        __sockctl_add_completions -W 'raw'$'\n''line'$'\n''crlf'$'\n''null'$'\n''length:1'$'\n''length:2'$'\n''length:4'$'\n''length:8'$'\n''fixed:'$'\n''http'
        return
        ;;
    '--max-frame')
        return
        ;;
    '--color')
        __sockctl_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '-w')
        return
        ;;
    '--record')
        return
        ;;
    '-e'|'--exec')
        return
        ;;
    '-c'|'--sh-exec')
        return
        ;;
    '--idle-timeout')
        return
        ;;
    '--reconnect')
        return
        ;;
    '--reconnect-max-delay')
        return
        ;;
    '--reconnect-jitter')
        return
        ;;
    '--heartbeat')
        return
        ;;
    '--heartbeat-interval')
        return
        ;;
    '--heartbeat-misses')
        return
        ;;
    esac
}

_sockctl_listen() {
    repeating_flags=()
    non_repeating_flags=(-u --udp --echo --discard --broadcast -k --keep-open --accept-proxy-protocol --recv-only --binary --no-compression --verbose -v --hexdump --quiet -q --version -h --help)
    repeating_options=(--allow --deny -H --header --subprotocol --allow-origin)
    non_repeating_options=(-p --respond --delay -e --exec -c --sh-exec --max-clients --handshake-timeout --idle-timeout --min-rate --rate-window --record --status --framing --max-frame --ping-interval --close-code --close-reason --max-message --metrics-listen --color --cert --key --client-ca --keylog)
    __sockctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-p')
        return
        ;;
    '--respond')
        return
        ;;
    '--delay')
        return
        ;;
    '-e'|'--exec')
        return
        ;;
    '-c'|'--sh-exec')
        return
        ;;
    '--max-clients')
        return
        ;;
    '--allow')
        return
        ;;
    '--deny')
        return
        ;;
    '--handshake-timeout')
        return
        ;;
    '--idle-timeout')
        return
        ;;
    '--min-rate')
        return
        ;;
    '--rate-window')
        return
        ;;
    '--record')
        return
        ;;
    '--status')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '--framing')
        __sockctl_add_completions -W 'raw'$'\n''line'$'\n''crlf'$'\n''null'$'\n''length:1'$'\n''length:2'$'\n''length:4'$'\n''length:8'$'\n''fixed:'$'\n''http'
        return
        ;;
    '--max-frame')
        return
        ;;
    '--subprotocol')
        return
        ;;
    '--ping-interval')
        return
        ;;
    '--close-code')
        return
        ;;
    '--close-reason')
        return
        ;;
    '--max-message')
        return
        ;;
    '--allow-origin')
        return
        ;;
    '--metrics-listen')
        return
        ;;
    '--color')
        __sockctl_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--client-ca')
        return
        ;;
    '--keylog')
        return
        ;;
    esac
}

_sockctl_send() {
    repeating_flags=()
    non_repeating_flags=(-e --escapes --json --fail -4 -6 --binary --no-compression -k --insecure --verbose -v --hexdump --version -h --help)
    repeating_options=(--resolve --subprotocol -H --header --pin)
    non_repeating_options=(--file --responses --timeout --repeat --correlate -X --method --source --interface --connect-timeout --ping-interval --close-code --close-reason --max-message --origin --cafile --servername --cert --key --keylog --proxy --framing --max-frame --color)
    __sockctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--file')
        return
        ;;
    '--responses')
        return
        ;;
    '--timeout')
        return
        ;;
    '--repeat')
        return
        ;;
    '--correlate')
        return
        ;;
    '-X'|'--method')
        return
        ;;
    '--source')
        return
        ;;
    '--interface')
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--resolve')
        return
        ;;
    '--subprotocol')
        return
        ;;
    '--ping-interval')
        return
        ;;
    '--close-code')
        return
        ;;
    '--close-reason')
        return
        ;;
    '--max-message')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '--origin')
        return
        ;;
    '--cafile')
        return
        ;;
    '--servername')
        return
        ;;
    '--pin')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--keylog')
        return
        ;;
    '--proxy')
        return
        ;;
    '--framing')
        __sockctl_add_completions -W 'raw'$'\n''line'$'\n''crlf'$'\n''null'$'\n''length:1'$'\n''length:2'$'\n''length:4'$'\n''length:8'$'\n''fixed:'$'\n''http'
        return
        ;;
    '--max-frame')
        return
        ;;
    '--color')
        __sockctl_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    esac
}

_sockctl_proxy() {
    repeating_flags=()
    non_repeating_flags=(--print-messages --json --json-log --verbose -v --hexdump --quiet -q --upstream-insecure --version -h --help)
    repeating_options=(--allow --deny --fault --allow-destination --deny-destination)
    non_repeating_options=(--max-clients --handshake-timeout --idle-timeout --min-rate --rate-window --metrics-listen --upstream-connect-timeout --udp-idle-timeout --fault-seed --control --record --send-proxy-protocol --framing --max-frame --color --cert --key --client-ca --keylog --upstream-cafile --upstream-servername --upstream-cert --upstream-key --upstream-proxy --proxy-user)
    __sockctl_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--max-clients')
        return
        ;;
    '--allow')
        return
        ;;
    '--deny')
        return
        ;;
    '--handshake-timeout')
        return
        ;;
    '--idle-timeout')
        return
        ;;
    '--min-rate')
        return
        ;;
    '--rate-window')
        return
        ;;
    '--metrics-listen')
        return
        ;;
    '--upstream-connect-timeout')
        return
        ;;
    '--udp-idle-timeout')
        return
        ;;
    '--fault')
        return
        ;;
    '--fault-seed')
        return
        ;;
    '--control')
        return
        ;;
    '--record')
        return
        ;;
    '--send-proxy-protocol')
        __sockctl_add_completions -W 'v1'$'\n''v2'
        return
        ;;
    '--framing')
        __sockctl_add_completions -W 'raw'$'\n''line'$'\n''crlf'$'\n''null'$'\n''length:1'$'\n''length:2'$'\n''length:4'$'\n''length:8'$'\n''fixed:'$'\n''http'
        return
        ;;
    '--max-frame')
        return
        ;;
    '--color')
        __sockctl_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--client-ca')
        return
        ;;
    '--keylog')
        return
        ;;
    '--upstream-cafile')
        return
        ;;
    '--upstream-servername')
        return
        ;;
    '--upstream-cert')
        return
        ;;
    '--upstream-key')
        return
        ;;
    '--upstream-proxy')
        return
        ;;
    '--allow-destination')
        return
        ;;
    '--deny-destination')
        return
        ;;
    '--proxy-user')
        return
        ;;
    esac
}

_sockctl_replay() {
    repeating_flags=()
    non_repeating_flags=(--list --json --topspeed --verify -4 -6 --binary --no-compression -k --insecure --verbose -v --hexdump --version -h --help)
    repeating_options=(--ignore --resolve --subprotocol -H --header --pin)
    non_repeating_options=(--stream --speed --as-server --idle-timeout --source --interface --connect-timeout --ping-interval --close-code --close-reason --max-message --origin --cafile --servername --cert --key --keylog --proxy --framing --max-frame --color)
    __sockctl_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--stream')
        return
        ;;
    '--speed')
        return
        ;;
    '--ignore')
        return
        ;;
    '--as-server')
        return
        ;;
    '--idle-timeout')
        return
        ;;
    '--source')
        return
        ;;
    '--interface')
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--resolve')
        return
        ;;
    '--subprotocol')
        return
        ;;
    '--ping-interval')
        return
        ;;
    '--close-code')
        return
        ;;
    '--close-reason')
        return
        ;;
    '--max-message')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '--origin')
        return
        ;;
    '--cafile')
        return
        ;;
    '--servername')
        return
        ;;
    '--pin')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--keylog')
        return
        ;;
    '--proxy')
        return
        ;;
    '--framing')
        __sockctl_add_completions -W 'raw'$'\n''line'$'\n''crlf'$'\n''null'$'\n''length:1'$'\n''length:2'$'\n''length:4'$'\n''length:8'$'\n''fixed:'$'\n''http'
        return
        ;;
    '--max-frame')
        return
        ;;
    '--color')
        __sockctl_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    esac
}

_sockctl_loadtest() {
    repeating_flags=()
    non_repeating_flags=(-4 -6 --binary --no-compression -k --insecure --verbose -v --topspeed --loop --version -h --help)
    repeating_options=(--threshold --resolve --subprotocol -H --header --pin --ignore)
    non_repeating_options=(-c --connections --connect-rate --duration --requests --rate --stages --message --message-file --pipeline --threads --io --warmup --reply-timeout --json --report-every --metrics-listen --metrics-linger --source --interface --connect-timeout --ping-interval --close-code --close-reason --max-message --origin --cafile --servername --cert --key --keylog --proxy -X --method --framing --max-frame --correlate --label --shard --barrier --parties --barrier-timeout --start-at --color --from-pcap --streams --speed --scale --verify-sample)
    __sockctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-c'|'--connections')
        return
        ;;
    '--connect-rate')
        return
        ;;
    '--duration')
        return
        ;;
    '--requests')
        return
        ;;
    '--rate')
        return
        ;;
    '--stages')
        return
        ;;
    '--message')
        return
        ;;
    '--message-file')
        return
        ;;
    '--pipeline')
        return
        ;;
    '--threads')
        return
        ;;
    '--io')
        __sockctl_add_completions -W 'auto'$'\n''events'$'\n''threads'
        return
        ;;
    '--warmup')
        return
        ;;
    '--reply-timeout')
        return
        ;;
    '--json')
        return
        ;;
    '--threshold')
        return
        ;;
    '--report-every')
        return
        ;;
    '--metrics-listen')
        return
        ;;
    '--metrics-linger')
        return
        ;;
    '--source')
        return
        ;;
    '--interface')
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--resolve')
        return
        ;;
    '--subprotocol')
        return
        ;;
    '--ping-interval')
        return
        ;;
    '--close-code')
        return
        ;;
    '--close-reason')
        return
        ;;
    '--max-message')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '--origin')
        return
        ;;
    '--cafile')
        return
        ;;
    '--servername')
        return
        ;;
    '--pin')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--keylog')
        return
        ;;
    '--proxy')
        return
        ;;
    '-X'|'--method')
        return
        ;;
    '--framing')
        __sockctl_add_completions -W 'raw'$'\n''line'$'\n''crlf'$'\n''null'$'\n''length:1'$'\n''length:2'$'\n''length:4'$'\n''length:8'$'\n''fixed:'$'\n''http'
        return
        ;;
    '--max-frame')
        return
        ;;
    '--correlate')
        return
        ;;
    '--label')
        return
        ;;
    '--shard')
        return
        ;;
    '--barrier')
        return
        ;;
    '--parties')
        return
        ;;
    '--barrier-timeout')
        return
        ;;
    '--start-at')
        return
        ;;
    '--color')
        __sockctl_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--from-pcap')
        return
        ;;
    '--streams')
        return
        ;;
    '--speed')
        return
        ;;
    '--scale')
        return
        ;;
    '--verify-sample')
        return
        ;;
    '--ignore')
        return
        ;;
    esac
}

_sockctl_report() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __sockctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    merge)
        # Offer subcommand argument completions
        "_sockctl_report_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'merge' -- "${cur}"))
        ;;
    esac
}

_sockctl_report_merge() {
    repeating_flags=()
    non_repeating_flags=(--strict --version -h --help)
    repeating_options=(--threshold)
    non_repeating_options=(--json --expect --color)
    __sockctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--json')
        return
        ;;
    '--threshold')
        return
        ;;
    '--expect')
        return
        ;;
    '--color')
        __sockctl_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    esac
}

_sockctl_capture() {
    repeating_flags=(-x -X -A -t -v -q)
    non_repeating_flags=(--print -n --no-dump --nano -S -e -l --follow --json -U --immediate-mode -D --version -h --help)
    repeating_options=()
    non_repeating_options=(-i --port -f -r -w -c -s -y -Z --framing --decode --keylog -C -G -W -z --color)
    __sockctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-i')
        return
        ;;
    '--port')
        return
        ;;
    '-f')
        return
        ;;
    '-r')
        return
        ;;
    '-w')
        return
        ;;
    '-c')
        return
        ;;
    '-s')
        return
        ;;
    '-y')
        return
        ;;
    '-Z')
        return
        ;;
    '--framing')
        __sockctl_add_completions -W 'raw'$'\n''line'$'\n''crlf'$'\n''null'$'\n''length:1'$'\n''length:2'$'\n''length:4'$'\n''length:8'$'\n''fixed:'$'\n''http'
        return
        ;;
    '--decode')
        return
        ;;
    '--keylog')
        __sockctl_add_completions -f
        return
        ;;
    '-C')
        return
        ;;
    '-G')
        return
        ;;
    '-W')
        return
        ;;
    '-z')
        return
        ;;
    '--color')
        __sockctl_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    esac
}

_sockctl_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __sockctl_offer_flags_options -1
}

complete -o filenames -F _sockctl sockctl
