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
            __sockctl_parse_subcommand -r 1 '4' '6' 'source=' 'interface=' 'connect-timeout=' 'resolve=+' 'binary' 'subprotocol=+' 'ping-interval=' 'close-code=' 'close-reason=' 'max-message=' 'H/header=+' 'origin=' 'k/insecure' 'cafile=' 'servername=' 'pin=+' 'cert=' 'key=' 'framing=' 'max-frame=' 'v/verbose' 'hexdump' 'color=' 'u/udp' 'w=' 'z/check-ports' 'echo-messages' 'C/crlf' 'send-only' 'recv-only' 'no-shutdown' 'close-on-eof' 'record=' 'idle-timeout=' 'reconnect=' 'reconnect-max-delay=' 'reconnect-jitter=' 'heartbeat=' 'heartbeat-interval=' 'heartbeat-misses=' 'version' 'h/help'
        case 'listen'
            __sockctl_parse_subcommand 1 'p=' 'u/udp' 'echo' 'discard' 'broadcast' 'respond=' 'delay=' 'k/keep-open' 'max-clients=' 'allow=+' 'deny=+' 'handshake-timeout=' 'idle-timeout=' 'min-rate=' 'rate-window=' 'record=' 'recv-only' 'status=' 'H/header=+' 'framing=' 'max-frame=' 'binary' 'subprotocol=+' 'ping-interval=' 'close-code=' 'close-reason=' 'max-message=' 'allow-origin=+' 'metrics-listen=' 'v/verbose' 'hexdump' 'color=' 'q/quiet' 'cert=' 'key=' 'client-ca=' 'version' 'h/help'
        case 'send'
            __sockctl_parse_subcommand -r 2 'file=' 'e/escapes' 'responses=' 'timeout=' 'repeat=' 'json' 'correlate=' 'fail' 'X/method=' '4' '6' 'source=' 'interface=' 'connect-timeout=' 'resolve=+' 'binary' 'subprotocol=+' 'ping-interval=' 'close-code=' 'close-reason=' 'max-message=' 'H/header=+' 'origin=' 'k/insecure' 'cafile=' 'servername=' 'pin=+' 'cert=' 'key=' 'framing=' 'max-frame=' 'v/verbose' 'hexdump' 'color=' 'version' 'h/help'
        case 'proxy'
            __sockctl_parse_subcommand 2 'max-clients=' 'allow=+' 'deny=+' 'handshake-timeout=' 'idle-timeout=' 'min-rate=' 'rate-window=' 'metrics-listen=' 'upstream-connect-timeout=' 'udp-idle-timeout=' 'fault=+' 'fault-seed=' 'control=' 'print-messages' 'json' 'record=' 'framing=' 'max-frame=' 'v/verbose' 'hexdump' 'q/quiet' 'color=' 'cert=' 'key=' 'client-ca=' 'upstream-insecure' 'upstream-cafile=' 'upstream-servername=' 'upstream-cert=' 'upstream-key=' 'version' 'h/help'
        case 'replay'
            __sockctl_parse_subcommand 2 'list' 'json' 'stream=' 'speed=' 'topspeed' 'verify' 'ignore=+' 'as-server=' 'idle-timeout=' '4' '6' 'source=' 'interface=' 'connect-timeout=' 'resolve=+' 'binary' 'subprotocol=+' 'ping-interval=' 'close-code=' 'close-reason=' 'max-message=' 'H/header=+' 'origin=' 'k/insecure' 'cafile=' 'servername=' 'pin=+' 'cert=' 'key=' 'framing=' 'max-frame=' 'v/verbose' 'hexdump' 'color=' 'version' 'h/help'
        case 'loadtest'
            __sockctl_parse_subcommand -r 1 'c/connections=' 'connect-rate=' 'duration=' 'requests=' 'rate=' 'stages=' 'message=' 'message-file=' 'pipeline=' 'threads=' 'io=' 'warmup=' 'reply-timeout=' 'json=' 'threshold=+' 'report-every=' 'metrics-listen=' 'metrics-linger=' '4' '6' 'source=' 'interface=' 'connect-timeout=' 'resolve=+' 'binary' 'subprotocol=+' 'ping-interval=' 'close-code=' 'close-reason=' 'max-message=' 'H/header=+' 'origin=' 'k/insecure' 'cafile=' 'servername=' 'pin=+' 'cert=' 'key=' 'X/method=' 'framing=' 'max-frame=' 'correlate=' 'label=' 'v/verbose' 'color=' 'from-pcap=' 'streams=' 'speed=' 'topspeed' 'scale=' 'loop' 'verify-sample=' 'ignore=+' 'version' 'h/help'
        case 'report'
            __sockctl_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'merge'
                __sockctl_parse_subcommand -r 1 'json=' 'threshold=+' 'color=' 'version' 'h/help'
            end
        case 'capture'
            __sockctl_parse_subcommand -r 1 'i=' 'port=' 'f=' 'r=' 'w=' 'print' 'c=' 's=' 'y=' 'n' 'x' 'X' 'A' 'no-dump' 't' 'nano' 'S' 'e' 'v' 'l' 'Z=' 'follow' 'framing=' 'json' 'decode=' 'color=' 'version' 'h/help'
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
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl" -eq 1' -fa 'proxy' -d 'Relay clients to a server, showing, recording and breaking the traffic.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl" -eq 1' -fa 'replay' -d 'Replay a recorded TCP or UDP session against a server, and check its answers.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl" -eq 1' -fa 'loadtest' -d 'Load a service with many connections and report latency and errors you can trust.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl" -eq 1' -fa 'report' -d 'Combine load-test results.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl" -eq 1' -fa 'capture' -d 'Capture or read packets and print them exactly as tcpdump -n does.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" 4' -s '4' -d 'Use IPv4 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" 6' -s '6' -d 'Use IPv6 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" source' -l 'source' -d 'Bind the local end to this address (or name), optionally with a port.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" interface' -l 'interface' -d 'Send through this network interface (SO_BINDTODEVICE).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" connect-timeout' -l 'connect-timeout' -d 'Give up connecting after this long, across all addresses (default: 10s).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect"' -l 'resolve' -d 'Resolve HOST to these addresses instead of asking DNS (repeatable), like curl --resolve.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" binary' -l 'binary' -d 'Send binary messages instead of text (ws:// and wss://).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect"' -l 'subprotocol' -d 'Subprotocol to offer (connect, send) or accept (listen); repeatable, in preference order.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" ping-interval' -l 'ping-interval' -d 'Send a WebSocket ping this often.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" close-code' -l 'close-code' -d 'Close code sent when this side ends the WebSocket (1000-1003, 1007-1014, 3000-4999).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" close-reason' -l 'close-reason' -d 'Close reason sent with it (at most 123 bytes of UTF-8).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" max-message' -l 'max-message' -d 'Largest WebSocket message accepted; a larger one closes the connection with 1009.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect"' -s 'H' -l 'header' -d 'Extra header on what this side sends (repeatable): the WebSocket handshake request (ws://, wss://) or the HTTP request (http://, https://).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" origin' -l 'origin' -d 'Origin header of the WebSocket handshake.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" insecure k' -s 'k' -l 'insecure' -d 'Do not verify the server\'s certificate (said on stderr for every connection).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" cafile' -l 'cafile' -d 'Also trust the CA certificates in this PEM file.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" servername' -l 'servername' -d 'Send this name (SNI) and check it in the certificate, instead of the host.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect"' -l 'pin' -d 'Also require this public key: sha256//BASE64 of its SubjectPublicKeyInfo (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" cert' -l 'cert' -d 'The certificate chain (PEM) this side presents: to a server that asks for one; with --key.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" key' -l 'key' -d 'The private key (PEM) of --cert.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" framing' -l 'framing' -d 'Message boundaries: raw (the default), line, crlf, null, length:N[:be|:le] (N = 1, 2, 4, 8) or fixed:N.' -rfka 'raw line crlf null length:1 length:2 length:4 length:8 fixed: http'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" max-frame' -l 'max-frame' -d 'Largest message accepted; a longer one closes that connection with an error.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" v verbose' -l 'verbose' -s 'v' -d 'Print more on stderr: connection events, with timestamps.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" hexdump' -l 'hexdump' -d 'Print all traffic in the tcpdump -X layout (hex and ASCII), with direction and time, on stderr.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" color' -l 'color' -d 'Colour the warning and error labels; auto: only on a terminal, and not when NO_COLOR is set or TERM=dumb.' -rfka 'auto always never'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" u udp' -s 'u' -l 'udp' -d 'UDP, as nc -u: HOST PORT or HOST:PORT means udp://HOST:PORT.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" w' -s 'w' -d 'Give up connecting after this long and end the session after this long without traffic, as nc -w (a plain number is seconds; --connect-timeout and --idle-timeout, when given, set their half).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" check-ports z' -s 'z' -l 'check-ports' -d 'Only check whether the ports accept connections, as nc -z: a line per port on stderr, exit 0 when one is open, 1 when none is.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" echo-messages' -l 'echo-messages' -d 'WebSocket: send every message back with its type, read no input (Autobahn client mode).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" C crlf' -s 'C' -l 'crlf' -d 'Send LF line endings as CRLF.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" send-only' -l 'send-only' -d 'Only send: what arrives is read and counted but not printed; end at end of input.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" recv-only' -l 'recv-only' -d 'Only receive: never read stdin.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" no-shutdown' -l 'no-shutdown' -d 'At end of input keep the connection fully open (no FIN) until the peer closes.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" close-on-eof' -l 'close-on-eof' -d 'At end of input close the connection instead of half-closing it.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" record' -l 'record' -d 'Write the traffic to this pcap file: the session, made-up Ethernet/IP/TCP or UDP headers around the real payload and times, for tcpdump, Wireshark and sockctl replay.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" idle-timeout' -l 'idle-timeout' -d 'Close a connection once nothing was received or sent for this long, ending the session (default: never; -w sets it too).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" reconnect' -l 'reconnect' -d 'Reconnect after a refused or lost connection, at most N times in a row (default 5; write --reconnect alone for the default).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" reconnect-max-delay' -l 'reconnect-max-delay' -d 'Never wait longer than this between reconnect attempts.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" reconnect-jitter' -l 'reconnect-jitter' -d 'Randomise each reconnect delay by up to this fraction (0-1).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" heartbeat' -l 'heartbeat' -d 'Send this payload every heartbeat interval (escapes allowed).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" heartbeat-interval' -l 'heartbeat-interval' -d 'Time between heartbeats.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" heartbeat-misses' -l 'heartbeat-misses' -d 'Declare the peer dead after this many intervals with nothing received.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl connect" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" p' -s 'p' -d 'Listen on this port of loopback, as ncat -l -p (the same as the endpoint PORT).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" u udp' -s 'u' -l 'udp' -d 'UDP, as nc -u: PORT or HOST:PORT means udp://HOST:PORT.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" echo' -l 'echo' -d 'Send every message back to its sender.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" discard' -l 'discard' -d 'Read and count what clients send; print nothing.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" broadcast' -l 'broadcast' -d 'Send every message from one client to all the others (implies --keep-open).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" respond' -l 'respond' -d 'Answer every message with this file\'s content.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" delay' -l 'delay' -d 'Wait this long after each message before answering it.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" k keep-open' -s 'k' -l 'keep-open' -d 'Keep accepting clients after the first one leaves.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" max-clients' -l 'max-clients' -d 'Refuse clients beyond this many at once.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen"' -l 'allow' -d 'Only admit clients from this network (repeatable); wins over --deny.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen"' -l 'deny' -d 'Refuse clients from this network (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" handshake-timeout' -l 'handshake-timeout' -d 'Close (and count as refused) a client whose TLS handshake or WebSocket upgrade is not done this long after it connected.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" idle-timeout' -l 'idle-timeout' -d 'Close a connection once nothing was received or sent for this long (each client\'s; default: never).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" min-rate' -l 'min-rate' -d 'When --max-clients are connected, a newcomer takes the place of the slowest client moving fewer bytes a second than this over --rate-window; 0: refuse the newcomer instead.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" rate-window' -l 'rate-window' -d 'How long --min-rate is judged over; a client connected for less is never made to leave.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" record' -l 'record' -d 'Write the traffic to this pcap file: every client\'s session, made-up Ethernet/IP/TCP headers around the real payload and times.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" recv-only' -l 'recv-only' -d 'Only receive: never read stdin (print mode otherwise sends it to the clients).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" status' -l 'status' -d 'http:// and https://: the status of every answer, 100-599 (default 200).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen"' -s 'H' -l 'header' -d 'Extra header on what this side sends (repeatable): each HTTP response (http://, https://).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" framing' -l 'framing' -d 'Message boundaries: raw (the default), line, crlf, null, length:N[:be|:le] (N = 1, 2, 4, 8) or fixed:N.' -rfka 'raw line crlf null length:1 length:2 length:4 length:8 fixed: http'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" max-frame' -l 'max-frame' -d 'Largest message accepted; a longer one closes that connection with an error.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" binary' -l 'binary' -d 'Send binary messages instead of text (ws:// and wss://).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen"' -l 'subprotocol' -d 'Subprotocol to offer (connect, send) or accept (listen); repeatable, in preference order.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" ping-interval' -l 'ping-interval' -d 'Send a WebSocket ping this often.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" close-code' -l 'close-code' -d 'Close code sent when this side ends the WebSocket (1000-1003, 1007-1014, 3000-4999).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" close-reason' -l 'close-reason' -d 'Close reason sent with it (at most 123 bytes of UTF-8).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" max-message' -l 'max-message' -d 'Largest WebSocket message accepted; a larger one closes the connection with 1009.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen"' -l 'allow-origin' -d 'WebSocket: admit only clients whose Origin header is this (repeatable); others get 403.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" metrics-listen' -l 'metrics-listen' -d 'Serve Prometheus metrics at http://ADDR/metrics, e.g. 9464, 0.0.0.0:9464 or :0 (a bare port: loopback).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" v verbose' -l 'verbose' -s 'v' -d 'Print more on stderr: connection events, with timestamps.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" hexdump' -l 'hexdump' -d 'Print all traffic in the tcpdump -X layout (hex and ASCII), with direction and time, on stderr.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" color' -l 'color' -d 'Colour the warning and error labels; auto: only on a terminal, and not when NO_COLOR is set or TERM=dumb.' -rfka 'auto always never'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" q quiet' -l 'quiet' -s 'q' -d 'No per-client log lines (connected, disconnected, refused, datagrams); warnings, errors and the summary still.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" cert' -l 'cert' -d 'The certificate chain (PEM) this side presents: to clients, for tls:// and wss://; with --key.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" key' -l 'key' -d 'The private key (PEM) of --cert.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" client-ca' -l 'client-ca' -d 'Require client certificates signed by a CA in this PEM file.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl listen" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" file' -l 'file' -d 'Send this file\'s content as one message (- for stdin).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" e escapes' -s 'e' -l 'escapes' -d 'Interpret \\n \\r \\t \\0 \\\\ and \\xHH in MESSAGE arguments.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" responses' -l 'responses' -d 'Wait for this many response messages after each round (0: do not wait).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" timeout' -l 'timeout' -d 'Time allowed for the whole exchange once connected.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" repeat' -l 'repeat' -d 'Send the messages and wait for the responses this many times on one connection.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" json' -l 'json' -d 'Write the result as JSON: timings and responses, one object on stdout.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" correlate' -l 'correlate' -d 'Match each reply to its message by this key in both, not by order: json:PATH, regex:RE (first group) or bytes:OFFSET:LENGTH, e.g. json:$.id.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" fail' -l 'fail' -d 'http:// and https://: exit 1 when a final response\'s status is not 2xx (redirects are not followed, so 3xx counts).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" X method' -s 'X' -l 'method' -d 'HTTP request method, as curl\'s -X (default: GET, or POST when a body is given).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" 4' -s '4' -d 'Use IPv4 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" 6' -s '6' -d 'Use IPv6 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" source' -l 'source' -d 'Bind the local end to this address (or name), optionally with a port.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" interface' -l 'interface' -d 'Send through this network interface (SO_BINDTODEVICE).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" connect-timeout' -l 'connect-timeout' -d 'Give up connecting after this long, across all addresses (default: 10s).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send"' -l 'resolve' -d 'Resolve HOST to these addresses instead of asking DNS (repeatable), like curl --resolve.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" binary' -l 'binary' -d 'Send binary messages instead of text (ws:// and wss://).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send"' -l 'subprotocol' -d 'Subprotocol to offer (connect, send) or accept (listen); repeatable, in preference order.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" ping-interval' -l 'ping-interval' -d 'Send a WebSocket ping this often.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" close-code' -l 'close-code' -d 'Close code sent when this side ends the WebSocket (1000-1003, 1007-1014, 3000-4999).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" close-reason' -l 'close-reason' -d 'Close reason sent with it (at most 123 bytes of UTF-8).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" max-message' -l 'max-message' -d 'Largest WebSocket message accepted; a larger one closes the connection with 1009.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send"' -s 'H' -l 'header' -d 'Extra header on what this side sends (repeatable): the WebSocket handshake request (ws://, wss://) or the HTTP request (http://, https://).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" origin' -l 'origin' -d 'Origin header of the WebSocket handshake.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" insecure k' -s 'k' -l 'insecure' -d 'Do not verify the server\'s certificate (said on stderr for every connection).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" cafile' -l 'cafile' -d 'Also trust the CA certificates in this PEM file.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" servername' -l 'servername' -d 'Send this name (SNI) and check it in the certificate, instead of the host.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send"' -l 'pin' -d 'Also require this public key: sha256//BASE64 of its SubjectPublicKeyInfo (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" cert' -l 'cert' -d 'The certificate chain (PEM) this side presents: to a server that asks for one; with --key.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" key' -l 'key' -d 'The private key (PEM) of --cert.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" framing' -l 'framing' -d 'Message boundaries: raw (the default), line, crlf, null, length:N[:be|:le] (N = 1, 2, 4, 8) or fixed:N.' -rfka 'raw line crlf null length:1 length:2 length:4 length:8 fixed: http'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" max-frame' -l 'max-frame' -d 'Largest message accepted; a longer one closes that connection with an error.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" v verbose' -l 'verbose' -s 'v' -d 'Print more on stderr: connection events, with timestamps.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" hexdump' -l 'hexdump' -d 'Print all traffic in the tcpdump -X layout (hex and ASCII), with direction and time, on stderr.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" color' -l 'color' -d 'Colour the warning and error labels; auto: only on a terminal, and not when NO_COLOR is set or TERM=dumb.' -rfka 'auto always never'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl send" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" max-clients' -l 'max-clients' -d 'Refuse clients beyond this many at once.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy"' -l 'allow' -d 'Only admit clients from this network (repeatable); wins over --deny.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy"' -l 'deny' -d 'Refuse clients from this network (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" handshake-timeout' -l 'handshake-timeout' -d 'Close (and count as refused) a client whose TLS handshake or WebSocket upgrade is not done this long after it connected.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" idle-timeout' -l 'idle-timeout' -d 'Close a connection once nothing was received or sent for this long (each client\'s; default: never).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" min-rate' -l 'min-rate' -d 'When --max-clients are connected, a newcomer takes the place of the slowest client moving fewer bytes a second than this over --rate-window; 0: refuse the newcomer instead.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" rate-window' -l 'rate-window' -d 'How long --min-rate is judged over; a client connected for less is never made to leave.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" metrics-listen' -l 'metrics-listen' -d 'Serve Prometheus metrics at http://ADDR/metrics, e.g. 9464, 0.0.0.0:9464 or :0 (a bare port: loopback).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" upstream-connect-timeout' -l 'upstream-connect-timeout' -d 'Give up on an upstream connection (resolving, connecting, TLS, WebSocket upgrade) after this long; the client is closed.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" udp-idle-timeout' -l 'udp-idle-timeout' -d 'Close a UDP flow after this long without a datagram either way.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy"' -l 'fault' -d 'Inject this fault (repeatable); see the discussion for the kinds.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" fault-seed' -l 'fault-seed' -d 'Seed the chance of every fault, so a run can be repeated exactly.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" control' -l 'control' -d 'Take fault commands (add, remove, list, clear) on this Unix socket while running.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" print-messages' -l 'print-messages' -d 'Print every message on stdout (needs --framing unless a side is ws, wss, udp or http: HTTP messages show as start line, headers and body).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" json json-log' -l 'json' -l 'json-log' -d 'Write the result as JSON: every event — clients, messages, chunks, faults — one object per line on stdout (human output on stderr).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" record' -l 'record' -d 'Write the traffic to this pcap file: every client\'s session.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" framing' -l 'framing' -d 'Message boundaries: raw (the default), line, crlf, null, length:N[:be|:le] (N = 1, 2, 4, 8) or fixed:N.' -rfka 'raw line crlf null length:1 length:2 length:4 length:8 fixed: http'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" max-frame' -l 'max-frame' -d 'Largest message accepted; a longer one closes that connection with an error.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" v verbose' -l 'verbose' -s 'v' -d 'Print more on stderr: also upstream connections, directions ending and every fault acting, with timestamps.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" hexdump' -l 'hexdump' -d 'Print all traffic in the tcpdump -X layout (hex and ASCII), with time, client number and direction, on stderr.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" q quiet' -l 'quiet' -s 'q' -d 'No per-client log lines (connected, disconnected, refused); warnings, errors and the summary still.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" color' -l 'color' -d 'Colour the warning and error labels; auto: only on a terminal, and not when NO_COLOR is set or TERM=dumb.' -rfka 'auto always never'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" cert' -l 'cert' -d 'The certificate chain (PEM) this side presents: to clients, for tls:// and wss://; with --key.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" key' -l 'key' -d 'The private key (PEM) of --cert.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" client-ca' -l 'client-ca' -d 'Require client certificates signed by a CA in this PEM file.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" upstream-insecure' -l 'upstream-insecure' -d 'Do not verify the upstream server\'s certificate.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" upstream-cafile' -l 'upstream-cafile' -d 'Also trust the CA certificates in this PEM file for the upstream.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" upstream-servername' -l 'upstream-servername' -d 'Send this name (SNI) to the upstream and check it in its certificate.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" upstream-cert' -l 'upstream-cert' -d 'Client certificate chain (PEM) for an upstream that asks for one; with --upstream-key.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" upstream-key' -l 'upstream-key' -d 'The private key (PEM) of --upstream-cert.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl proxy" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" list' -l 'list' -d 'List the TCP and UDP streams in the file and exit.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" json' -l 'json' -d 'Write the result as JSON: one object on stdout (with --list: one object per stream, a line each); human output on stderr.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" stream' -l 'stream' -d 'The stream to replay (see --list); needed when the file holds more than one.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" speed' -l 'speed' -d 'Replay this many times faster than recorded (0.5: half as fast).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" topspeed' -l 'topspeed' -d 'Ignore the recorded gaps: send every message as soon as possible.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" verify' -l 'verify' -d 'Compare the target\'s answers with the recorded ones; exit 1 on the first mismatch.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay"' -l 'ignore' -d 'With --verify: leave text matching this regular expression out of the comparison (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" as-server' -l 'as-server' -d 'Play the recorded server side to clients connecting here.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" idle-timeout' -l 'idle-timeout' -d 'Close a connection once nothing was received or sent for this long: give up on the target (with --as-server, on a client).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" 4' -s '4' -d 'Use IPv4 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" 6' -s '6' -d 'Use IPv6 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" source' -l 'source' -d 'Bind the local end to this address (or name), optionally with a port.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" interface' -l 'interface' -d 'Send through this network interface (SO_BINDTODEVICE).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" connect-timeout' -l 'connect-timeout' -d 'Give up connecting after this long, across all addresses (default: 10s).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay"' -l 'resolve' -d 'Resolve HOST to these addresses instead of asking DNS (repeatable), like curl --resolve.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" binary' -l 'binary' -d 'Send binary messages instead of text (ws:// and wss://).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay"' -l 'subprotocol' -d 'Subprotocol to offer (connect, send) or accept (listen); repeatable, in preference order.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" ping-interval' -l 'ping-interval' -d 'Send a WebSocket ping this often.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" close-code' -l 'close-code' -d 'Close code sent when this side ends the WebSocket (1000-1003, 1007-1014, 3000-4999).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" close-reason' -l 'close-reason' -d 'Close reason sent with it (at most 123 bytes of UTF-8).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" max-message' -l 'max-message' -d 'Largest WebSocket message accepted; a larger one closes the connection with 1009.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay"' -s 'H' -l 'header' -d 'Extra header on what this side sends (repeatable): the WebSocket handshake request (ws://, wss://) or the HTTP request (http://, https://).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" origin' -l 'origin' -d 'Origin header of the WebSocket handshake.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" insecure k' -s 'k' -l 'insecure' -d 'Do not verify the server\'s certificate (said on stderr for every connection).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" cafile' -l 'cafile' -d 'Also trust the CA certificates in this PEM file.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" servername' -l 'servername' -d 'Send this name (SNI) and check it in the certificate, instead of the host.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay"' -l 'pin' -d 'Also require this public key: sha256//BASE64 of its SubjectPublicKeyInfo (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" cert' -l 'cert' -d 'The certificate chain (PEM) this side presents: to a server that asks for one; with --key.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" key' -l 'key' -d 'The private key (PEM) of --cert.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" framing' -l 'framing' -d 'Message boundaries: raw (the default), line, crlf, null, length:N[:be|:le] (N = 1, 2, 4, 8) or fixed:N.' -rfka 'raw line crlf null length:1 length:2 length:4 length:8 fixed: http'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" max-frame' -l 'max-frame' -d 'Largest message accepted; a longer one closes that connection with an error.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" v verbose' -l 'verbose' -s 'v' -d 'Print more on stderr: connection events, with timestamps.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" hexdump' -l 'hexdump' -d 'Print all traffic in the tcpdump -X layout (hex and ASCII), with direction and time, on stderr.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" color' -l 'color' -d 'Colour the warning and error labels; auto: only on a terminal, and not when NO_COLOR is set or TERM=dumb.' -rfka 'auto always never'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl replay" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" c connections' -s 'c' -l 'connections' -d 'Connections to open and keep open (default 10).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" connect-rate' -l 'connect-rate' -d 'New connections per second while ramping up (0: all at once).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" duration' -l 'duration' -d 'How long to send after the warm-up (default 10s unless --requests).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" requests' -l 'requests' -d 'Send this many messages in all, then stop.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" rate' -l 'rate' -d 'Total messages per second (open loop). Without it: closed loop.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" stages' -l 'stages' -d 'Rate stages DUR:RATE,... ramping linearly from --rate (or 0).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" message' -l 'message' -d 'The message (escapes allowed; {{seq}} and {{conn}} are filled in).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" message-file' -l 'message-file' -d 'Send this file\'s content as the message (placeholders allowed).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" pipeline' -l 'pipeline' -d 'Unanswered messages per connection (default 1; with --rate: no limit); needs --framing or an http:// target.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" threads' -l 'threads' -d 'Threads for the connections: event loops, or with --io threads threads of plain system calls (default: the number of cores).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" io' -l 'io' -d 'How connections do I/O: events (event loops, --threads of them), threads (plain system calls on --threads threads waiting with epoll, as wrk; a thread per connection polling a few µs for each reply while the connections leave a core free; closed loop over tcp://, http://, ws://, wss:// or unix: with --framing or http://), auto (threads when the run allows it and opens plain tcp://, http:// or unix: connections or leaves a core free).' -rfka 'auto events threads'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" warmup' -l 'warmup' -d 'Run this long first without measuring.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" reply-timeout' -l 'reply-timeout' -d 'A reply later than this times out (its connection is reopened).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" json' -l 'json' -d 'Write the result as JSON to FILE; alone (or -), to stdout, with the text report on stderr: every figure and both histograms.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest"' -l 'threshold' -d 'Fail (exit 1) unless this holds, e.g. p99<50ms, errors<0.1%, rate>10000, status5xx<1% (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" report-every' -l 'report-every' -d 'Print a progress line this often when stdout is not a terminal.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" metrics-listen' -l 'metrics-listen' -d 'Serve Prometheus metrics at http://ADDR/metrics, e.g. 9464, 0.0.0.0:9464 or :0 (a bare port: loopback).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" metrics-linger' -l 'metrics-linger' -d 'After the run, serve the final metrics until scraped (at most this long).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" 4' -s '4' -d 'Use IPv4 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" 6' -s '6' -d 'Use IPv6 addresses only.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" source' -l 'source' -d 'Bind the local end to this address (or name), optionally with a port.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" interface' -l 'interface' -d 'Send through this network interface (SO_BINDTODEVICE).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" connect-timeout' -l 'connect-timeout' -d 'Give up connecting after this long, across all addresses (default: 10s).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest"' -l 'resolve' -d 'Resolve HOST to these addresses instead of asking DNS (repeatable), like curl --resolve.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" binary' -l 'binary' -d 'Send binary messages instead of text (ws:// and wss://).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest"' -l 'subprotocol' -d 'Subprotocol to offer (connect, send) or accept (listen); repeatable, in preference order.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" ping-interval' -l 'ping-interval' -d 'Send a WebSocket ping this often.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" close-code' -l 'close-code' -d 'Close code sent when this side ends the WebSocket (1000-1003, 1007-1014, 3000-4999).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" close-reason' -l 'close-reason' -d 'Close reason sent with it (at most 123 bytes of UTF-8).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" max-message' -l 'max-message' -d 'Largest WebSocket message accepted; a larger one closes the connection with 1009.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest"' -s 'H' -l 'header' -d 'Extra header on what this side sends (repeatable): the WebSocket handshake request (ws://, wss://) or the HTTP request (http://, https://).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" origin' -l 'origin' -d 'Origin header of the WebSocket handshake.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" insecure k' -s 'k' -l 'insecure' -d 'Do not verify the server\'s certificate (said on stderr for every connection).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" cafile' -l 'cafile' -d 'Also trust the CA certificates in this PEM file.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" servername' -l 'servername' -d 'Send this name (SNI) and check it in the certificate, instead of the host.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest"' -l 'pin' -d 'Also require this public key: sha256//BASE64 of its SubjectPublicKeyInfo (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" cert' -l 'cert' -d 'The certificate chain (PEM) this side presents: to a server that asks for one; with --key.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" key' -l 'key' -d 'The private key (PEM) of --cert.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" X method' -s 'X' -l 'method' -d 'HTTP request method, as curl\'s -X (default: GET, or POST when a body is given).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" framing' -l 'framing' -d 'Message boundaries: raw, line, crlf, null, length:N[:be|:le], fixed:N or http, for the replies; omit to only send (http:// targets: always http).' -rfka 'raw line crlf null length:1 length:2 length:4 length:8 fixed: http'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" max-frame' -l 'max-frame' -d 'Largest message accepted; a longer one closes that connection with an error.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" correlate' -l 'correlate' -d 'Match each reply to its message by this key in both, not by order: json:PATH, regex:RE (first group) or bytes:OFFSET:LENGTH, e.g. json:$.id.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" label' -l 'label' -d 'Split counts and latency by this value of each request, e.g. json:$.op or http:path.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" v verbose' -l 'verbose' -s 'v' -d 'Print more on stderr: the plan, the target address and warnings.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" color' -l 'color' -d 'Colour the warning and error labels; auto: only on a terminal, and not when NO_COLOR is set or TERM=dumb.' -rfka 'auto always never'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" from-pcap' -l 'from-pcap' -d 'Replay the client streams of this capture as the load (see replay --list).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" streams' -l 'streams' -d 'With --from-pcap: only these streams, e.g. 1,3,5-9.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" speed' -l 'speed' -d 'With --from-pcap: replay this many times faster than recorded (0.5: half as fast).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" topspeed' -l 'topspeed' -d 'With --from-pcap: ignore the recorded gaps: each message once the previous reply is in.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" scale' -l 'scale' -d 'With --from-pcap: copies of each stream, each on its own connection.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" loop' -l 'loop' -d 'With --from-pcap: start each stream again when it ends, until --duration or --requests.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" verify-sample' -l 'verify-sample' -d 'With --from-pcap: compare this share of the replies with the recording, e.g. 10%.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest"' -l 'ignore' -d 'With --verify-sample: leave text matching this regular expression out of the comparison (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl loadtest" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl report" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl report" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_positional "sockctl report" -eq 1' -fa 'merge' -d 'Merge the --json results of load tests run at the same time (histograms add exactly).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl report merge" json' -l 'json' -d 'Write the result as JSON to FILE; alone (or -), to stdout, with the text report on stderr: the merged report.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl report merge"' -l 'threshold' -d 'Fail (exit 1) unless this holds for the merged result (repeatable).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl report merge" color' -l 'color' -d 'Colour the warning and error labels; auto: only on a terminal, and not when NO_COLOR is set or TERM=dumb.' -rfka 'auto always never'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl report merge" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl report merge" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" i' -s 'i' -d 'Interface to capture on (any = all interfaces).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" port' -l 'port' -d 'Only TCP port N (short for the filter \'tcp port N\').' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" f' -s 'f' -d 'BPF filter expression (instead of trailing words).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" r' -s 'r' -d 'Read packets from a pcap or pcapng file (- = stdin) instead of capturing.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" w' -s 'w' -d 'Write the packets to a pcap file (- = stdout) instead of printing them.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" print' -l 'print' -d 'With -w, also print the packets.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" c' -s 'c' -d 'Stop after N packets.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" s' -s 's' -d 'Bytes captured per packet (0 = 262144, the default).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" y' -s 'y' -d 'Link-layer type for live capture, e.g. LINUX_SLL, LINUX_SLL2, EN10MB.' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" n' -s 'n' -d 'Numeric addresses and ports (always on; accepted for tcpdump habits).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture"' -s 'x' -d 'Hex dump (-xx: including the link header).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture"' -s 'X' -d 'Hex and ASCII dump, the default (-XX: including the link header).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture"' -s 'A' -d 'ASCII dump (-AA: including the link header).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" no-dump' -l 'no-dump' -d 'Header lines only, no dump.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture"' -s 't' -d '-t no timestamp, -tt Unix seconds, -ttt since previous packet, -tttt date and time, -ttttt since first packet.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" nano' -l 'nano' -d 'Nanosecond timestamps (nine digits; -w writes a nanosecond pcap).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" S' -s 'S' -d 'Absolute TCP sequence numbers.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" e' -s 'e' -d 'Print the link-level header.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture"' -s 'v' -d 'Verbose decoding, as tcpdump\'s -v: IP TTL, id, flags and length, checksums verified, more protocol fields (-vv, -vvv: more still).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" l' -s 'l' -d 'Line-buffered output (each packet is written at once).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" Z' -s 'Z' -d 'Drop privileges to this user after opening the capture device (default: tcpdump, else nobody; root keeps them).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" follow' -l 'follow' -d 'Reassemble TCP streams and print their payload in order, with direction markers.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" framing' -l 'framing' -d 'With --follow: message boundaries: line, crlf, null, length:N[:be|:le], fixed:N or http; one message per entry.' -rfka 'raw line crlf null length:1 length:2 length:4 length:8 fixed: http'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" json' -l 'json' -d 'Write the result as JSON: one object per packet instead of tcpdump text (with the TLS, WebSocket and HTTP/2 views in an "app" array).'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" decode' -l 'decode' -d 'Views beyond tcpdump, printed after each header line: tls, ws, http2 or all, comma-separated (always on with --json and --follow).' -rfka ''
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" color' -l 'color' -d 'Colour the warning and error labels; auto: only on a terminal, and not when NO_COLOR is set or TERM=dumb.' -rfka 'auto always never'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" version' -l 'version' -d 'Show the version.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl capture" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sockctl' -n '__sockctl_should_offer_completions_for_flags_or_options "sockctl help" version' -l 'version' -d 'Show the version.'
