/// What each kind of option value looks like, by the value name `--help` shows (`<dur>`,
/// `<size>`): the words that finish "expected …" in an error, with an example. The value name
/// is the kind: an option's help names its value with one of these, and the conventions test
/// (`ValueErrorTests`) refuses a value name it does not know.
enum ValueForm {
    /// "a duration such as 500ms, 2s, 1m" for `dur`; for a name listing its choices
    /// (`auto|events|threads`), those choices; nil for a name not in the table.
    static func expected(_ valueName: String) -> String? {
        if let form = forms[valueName] { return form.text }
        if valueName.contains("|") {
            let choices = valueName.split(separator: "|")
            return "one of " + choices.dropLast().joined(separator: ", ") + " or " + (choices.last ?? "")
        }
        return nil
    }

    /// Whether the value is a number or a quantity, which no option takes below zero: `-5`
    /// after it is a negative number, not an option.
    static func isQuantity(_ valueName: String) -> Bool {
        forms[valueName]?.isQuantity ?? false
    }

    private struct Form {
        let text: String
        var isQuantity = false
    }

    private static let forms: [String: Form] = [
        "dur": Form(text: "a duration such as 500ms, 2s, 1m", isQuantity: true),
        "secs": Form(text: "a number of seconds such as 2 or 0.5", isQuantity: true),
        "when": Form(text: "one of auto, always, never"),
        "size": Form(text: "a size such as 4096, 64KiB, 16MiB", isQuantity: true),
        "n": Form(text: "a whole number such as 10", isQuantity: true),
        "k": Form(text: "a whole number such as 4", isQuantity: true),
        "count": Form(text: "a whole number such as 10", isQuantity: true),
        "r": Form(text: "a rate such as 1000 or 1000/s", isQuantity: true),
        "rate": Form(text: "bytes a second such as 0, 512B/s, 64KiB/s", isQuantity: true),
        "fraction": Form(text: "a fraction from 0 to 1 such as 0.25", isQuantity: true),
        "x": Form(text: "a factor such as 0.5 or 2", isQuantity: true),
        "port": Form(text: "a port number such as 443", isQuantity: true),
        "snaplen": Form(text: "a number of bytes such as 96 (0: 262144)", isQuantity: true),
        "p%": Form(text: "a share such as 10%", isQuantity: true),
        "endpoint": Form(text: "an endpoint such as 127.0.0.1:7000, udp://[::1]:53, unix:/run/app.sock"),
        "target": Form(text: "an endpoint such as 127.0.0.1:7000"),
        "upstream": Form(text: "an endpoint such as 127.0.0.1:7000"),
        "listen": Form(text: "[HOST:]PORT or an endpoint such as 8000, 127.0.0.1:8000, unix:/tmp/s.sock"),
        "[host:]port": Form(text: "[HOST:]PORT such as 7000 or 127.0.0.1:7000"),
        "addr": Form(text: "[HOST:]PORT such as 9464 or 127.0.0.1:9464"),
        "addr[:port]": Form(text: "an address with an optional port such as 127.0.0.1 or [::1]:40000"),
        "host:addr[,addr...]": Form(text: "HOST:ADDR[,ADDR...] such as api.test:127.0.0.1"),
        "cidr": Form(text: "an address or network such as 10.0.0.0/8, 192.168.1.7, fd00::/8"),
        "framing": Form(text: "a framing such as line, crlf, null, raw, length:4, fixed:16"),
        "spec": Form(text: "a fault such as latency=50ms or drop=2%"),
        "expr": Form(text: "a threshold such as p99<50ms, errors<0.1%, rate>10000"),
        "key": Form(text: "json:PATH, regex:RE or bytes:OFFSET:LENGTH such as json:$.id"),
        "pin": Form(text: "sha256//BASE64 of the public key such as sha256//x3HECQHGxOLnXvB2hfgUZMKf9VOTu3URwcxdG+Ou9pk="),
        "list": Form(text: "stream numbers such as 1,3,5-9"),
        "stages": Form(text: "stages DUR:RATE,... such as 30s:100,1m:1000,30s:0"),
        "views": Form(text: "views such as tls,ws,http2 or all"),
        "type": Form(text: "a link-layer type such as EN10MB, LINUX_SLL, LINUX_SLL2, RAW"),
        "'name: value'": Form(text: "'Name: value' such as 'Authorization: Bearer T'"),
        "unix:path": Form(text: "unix:PATH such as unix:/tmp/proxy.ctl"),
        "if": Form(text: "a network interface such as lo or eth0"),
        "interface": Form(text: "a network interface such as lo, eth0 or any"),
        "user": Form(text: "a user name such as nobody"),
        "name": Form(text: "a name such as chat.v2 or api.example.com"),
        "proxy": Form(text: "a proxy such as socks5h://127.0.0.1:1080, http://user:pass@127.0.0.1:3128 or env"),
        "origin": Form(text: "an origin such as http://localhost:8080"),
        "regex": Form(text: "a regular expression such as \"id\":[0-9]+"),
        "filter": Form(text: "a BPF filter such as 'tcp port 80' (see pcap-filter(7))"),
        "file": Form(text: "a file name such as result.json"),
        "file.pcap": Form(text: "a file name such as session.pcap"),
        "pem": Form(text: "a PEM file such as ca.pem"),
        "text": Form(text: "text such as 'ping {{seq}}'"),
        "payload": Form(text: "a payload such as '{\"op\":\"ping\"}\\n'"),
        "message": Form(text: "a message such as 'hello'"),
    ]
}
