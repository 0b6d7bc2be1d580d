/// The text protocols tcpdump prints through its shared line printer (``TextProtocol``), with
/// their request-method tables from print-http.c, print-rtsp.c and print-sip.c.
extension TextProtocol {
    /// HTTP on ports 80 and 8080, WebDAV methods included (print-http.c).
    static let http = TextProtocol(name: "http", capitalName: "HTTP", commands: table([
        "GET", "PUT", "COPY", "HEAD", "LOCK", "MOVE", "POLL", "POST", "BCOPY", "BMOVE", "MKCOL", "TRACE",
        "LABEL", "MERGE", "DELETE", "SEARCH", "UNLOCK", "REPORT", "UPDATE", "NOTIFY", "BDELETE", "CONNECT",
        "OPTIONS", "CHECKIN", "PROPFIND", "CHECKOUT", "CCM_POST", "SUBSCRIBE", "PROPPATCH", "BPROPFIND",
        "BPROPPATCH", "UNCHECKOUT", "MKACTIVITY", "MKWORKSPACE", "UNSUBSCRIBE", "RPC_CONNECT",
        "VERSION-CONTROL", "BASELINE-CONTROL",
    ]))

    /// RTSP on ports 554 and 8554 (print-rtsp.c).
    static let rtsp = TextProtocol(name: "rtsp", capitalName: "RTSP", commands: table([
        "DESCRIBE", "ANNOUNCE", "GET_PARAMETER", "OPTIONS", "PAUSE", "PLAY", "RECORD", "REDIRECT", "SETUP",
        "SET_PARAMETER", "TEARDOWN",
    ]))

    /// SIP on UDP port 5060 (print-sip.c).
    static let sip = TextProtocol(name: "sip", capitalName: "SIP", commands: table([
        "ACK", "BYE", "CANCEL", "DO", "INFO", "INVITE", "MESSAGE", "NOTIFY", "OPTIONS", "PRACK", "QAUTH",
        "REFER", "REGISTER", "SPRACK", "SUBSCRIBE", "UPDATE", "PUBLISH",
    ]))

    /// FTP control on port 21: every payload is a command or a reply.
    static let ftp = TextProtocol(name: "ftp", capitalName: "FTP", commands: nil)
    /// SMTP on port 25.
    static let smtp = TextProtocol(name: "smtp", capitalName: "SMTP", commands: nil)
    /// whois on port 43.
    static let whois = TextProtocol(name: "whois", capitalName: "WHOIS", commands: nil)

    private static func table(_ names: [StaticString]) -> [[UInt8]] {
        names.map { name in name.withUTF8Buffer { Array($0) } }
    }
}

extension PacketPrinter {
    /// tcpdump's `http_print`: `HTTP: GET / HTTP/1.1` for a request or response, `HTTP` alone
    /// for other data; with `-v` every line of a request or response.
    mutating func printHTTP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try printTextProtocol(.http, cursor, at: payload, length: length, into: &out)
    }

    /// tcpdump's `rtsp_print`, the same as HTTP with RTSP's methods.
    mutating func printRTSP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try printTextProtocol(.rtsp, cursor, at: payload, length: length, into: &out)
    }

    /// tcpdump's `sip_print` (UDP), the same as HTTP with SIP's methods; the UDP printer has
    /// already printed the addresses and `: `.
    mutating func printSIP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try printTextProtocol(.sip, cursor, at: payload, length: length, into: &out)
    }

    /// tcpdump's `ftp_print`: `FTP: ` and the first line of every payload (`-v`: all lines).
    mutating func printFTP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try printTextProtocol(.ftp, cursor, at: payload, length: length, into: &out)
    }

    /// tcpdump's `smtp_print`: `SMTP: ` and the first line of every payload (`-v`: all lines).
    mutating func printSMTP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try printTextProtocol(.smtp, cursor, at: payload, length: length, into: &out)
    }

    /// tcpdump's `whois_print`: `WHOIS: ` and the first line of every payload (`-v`: all lines).
    mutating func printWhois(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try printTextProtocol(.whois, cursor, at: payload, length: length, into: &out)
    }
}
