function __sockctl_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __sockctl_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __sockctl_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __sockctl_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __sockctl_parse_tokens -S
    set -l unparsed_tokens (__sockctl_tokens -pc)
    switch $unparsed_tokens[1]
    case 'sockctl'
        __sockctl_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'connect'
            __sockctl_parse_subcommand 1 '4' '6' 'source=' 'interface=' 'connect-timeout=' 'resolve=+' 'framing=' 'max-frame=' 'v/verbose' 'hexdump' 'C/crlf' 'send-only' 'recv-only' 'no-shutdown' 'close-on-eof' 'idle-timeout=' 'reconnect=' 'reconnect-max-delay=' 'reconnect-jitter=' 'heartbeat=' 'heartbeat-interval=' 'heartbeat-misses=' 'version' 'h/help'
        case 'listen'
            __sockctl_parse_subcommand 1 'echo' 'discard' 'broadcast' 'respond=' 'delay=' 'k/keep-open' 'max-clients=' 'allow=+' 'deny=+' 'recv-only' 'framing=' 'max-frame=' 'v/verbose' 'hexdump' 'version' 'h/help'
        case 'send'
            __sockctl_parse_subcommand -r 2 'file=' 'e/escapes' 'responses=' 'timeout=' 'repeat=' 'json' '4' '6' 'source=' 'interface=' 'connect-timeout=' 'resolve=+' 'framing=' 'max-frame=' 'v/verbose' 'hexdump' 'version' 'h/help'
        case 'help'
            __sockctl_parse_subcommand -r 1 'version'
        end
    end
end

function __sockctl_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __sockctl_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __sockctl_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __sockctl_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__sockctl_tokens -p)
    if test -z "$(__sockctl_tokens -t)"
        set -l index (count (__sockctl_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'sockctl' -f
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl" -eq 1' -fa 'connect' -d 'Connect to an endpoint and relay stdin to it and it to stdout.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl" -eq 1' -fa 'listen' -d 'Accept clients and print, echo, discard, broadcast or answer what they send.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl" -eq 1' -fa 'send' -d 'Send messages, wait for the responses, print them: curl for sockets.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" 4' -s '4' -d 'Use IPv4 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" 6' -s '6' -d 'Use IPv6 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" source' -l 'source' -d 'Bind the local end to this address (or name), optionally with a port.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" interface' -l 'interface' -d 'Send through this network interface (SO_BINDTODEVICE).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" connect-timeout' -l 'connect-timeout' -d 'Give up connecting after this long, across all addresses.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect"' -l 'resolve' -d 'Resolve HOST to these addresses instead of asking DNS (repeatable), like curl --resolve.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" framing' -l 'framing' -d 'Message boundaries: raw, line, crlf, null, length:N[:be|:le] (N = 1, 2, 4, 8) or fixed:N.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" max-frame' -l 'max-frame' -d 'Largest message accepted; a longer one closes that connection with an error.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" v verbose' -l 'verbose' -s 'v' -d 'Print connection events with timestamps on stderr.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" hexdump' -l 'hexdump' -d 'Print all traffic on stderr as tcpdump -X style hex and ASCII, with direction and time.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" C crlf' -s 'C' -l 'crlf' -d 'Send LF line endings as CRLF.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" send-only' -l 'send-only' -d 'Only send: what arrives is read and counted but not printed; end at end of input.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" recv-only' -l 'recv-only' -d 'Only receive: never read stdin.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" no-shutdown' -l 'no-shutdown' -d 'At end of input keep the connection fully open (no FIN) until the peer closes.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" close-on-eof' -l 'close-on-eof' -d 'At end of input close the connection instead of half-closing it.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" idle-timeout' -l 'idle-timeout' -d 'End the session after this long without traffic in either direction.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" reconnect' -l 'reconnect' -d 'Reconnect after a refused or lost connection, at most N times in a row (default 5; write --reconnect alone for the default).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" reconnect-max-delay' -l 'reconnect-max-delay' -d 'Never wait longer than this between reconnect attempts.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" reconnect-jitter' -l 'reconnect-jitter' -d 'Randomise each reconnect delay by up to this fraction (0-1).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" heartbeat' -l 'heartbeat' -d 'Send this payload every heartbeat interval (escapes allowed).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" heartbeat-interval' -l 'heartbeat-interval' -d 'Time between heartbeats.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" heartbeat-misses' -l 'heartbeat-misses' -d 'Declare the peer dead after this many intervals with nothing received.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" echo' -l 'echo' -d 'Send every message back to its sender.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" discard' -l 'discard' -d 'Read and count what clients send; print nothing.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" broadcast' -l 'broadcast' -d 'Send every message from one client to all the others (implies --keep-open).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" respond' -l 'respond' -d 'Answer every message with this file\'s content.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" delay' -l 'delay' -d 'Wait this long after each message before answering it.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" k keep-open' -s 'k' -l 'keep-open' -d 'Keep accepting clients after the first one leaves.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" max-clients' -l 'max-clients' -d 'Refuse clients beyond this many at once.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen"' -l 'allow' -d 'Only admit clients from this network (repeatable); wins over --deny.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen"' -l 'deny' -d 'Refuse clients from this network (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" recv-only' -l 'recv-only' -d 'Do not read stdin (print mode normally sends it to the clients).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" framing' -l 'framing' -d 'Message boundaries: raw, line, crlf, null, length:N[:be|:le] (N = 1, 2, 4, 8) or fixed:N.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" max-frame' -l 'max-frame' -d 'Largest message accepted; a longer one closes that connection with an error.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" v verbose' -l 'verbose' -s 'v' -d 'Print connection events with timestamps on stderr.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" hexdump' -l 'hexdump' -d 'Print all traffic on stderr as tcpdump -X style hex and ASCII, with direction and time.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" file' -l 'file' -d 'Send this file\'s content as one message (- for stdin).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" e escapes' -s 'e' -l 'escapes' -d 'Interpret \\n \\r \\t \\0 \\\\ and \\xHH in MESSAGE arguments.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" responses' -l 'responses' -d 'Wait for this many response messages after each round (0: do not wait).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" timeout' -l 'timeout' -d 'Time allowed for the whole exchange once connected.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" repeat' -l 'repeat' -d 'Send the messages and wait for the responses this many times on one connection.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" json' -l 'json' -d 'Print timings and responses as one JSON object.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" 4' -s '4' -d 'Use IPv4 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" 6' -s '6' -d 'Use IPv6 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" source' -l 'source' -d 'Bind the local end to this address (or name), optionally with a port.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" interface' -l 'interface' -d 'Send through this network interface (SO_BINDTODEVICE).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" connect-timeout' -l 'connect-timeout' -d 'Give up connecting after this long, across all addresses.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send"' -l 'resolve' -d 'Resolve HOST to these addresses instead of asking DNS (repeatable), like curl --resolve.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" framing' -l 'framing' -d 'Message boundaries: raw, line, crlf, null, length:N[:be|:le] (N = 1, 2, 4, 8) or fixed:N.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" max-frame' -l 'max-frame' -d 'Largest message accepted; a longer one closes that connection with an error.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" v verbose' -l 'verbose' -s 'v' -d 'Print connection events with timestamps on stderr.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" hexdump' -l 'hexdump' -d 'Print all traffic on stderr as tcpdump -X style hex and ASCII, with direction and time.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl help" version' -l 'version' -d 'Show the version.'
