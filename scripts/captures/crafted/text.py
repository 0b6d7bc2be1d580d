"""Text protocols for tcpdump's shared line printer (HTTP, RTSP, SIP, FTP, SMTP, whois), the SSH
banner, telnet option negotiation and RESP (Redis): ordinary dialogues, every printed variant,
lines without CR-LF, binary data, payloads cut by the capture, malformed fields.
"""
from craft import *  # noqa: F403


class Conversation:
    """One TCP connection with running sequence numbers; c() and s() make the client's and the
    server's segments (PSH|ACK unless told), caplen cuts the frame short."""

    def __init__(self, client_port, server_port, v6=False, client=None, server=None, seq=1000, handshake=False):
        self.cp, self.sp, self.v6 = client_port, server_port, v6
        self.ca = client or (V6_A if v6 else V4_A)
        self.sa = server or (V6_B if v6 else V4_B)
        self.cseq, self.sseq = seq, seq * 7 + 12345
        self.frames = []
        if handshake:
            self.frames.append(self._frame(True, b"", SYN, ack=0))
            self.cseq += 1
            self.frames.append(self._frame(False, b"", SYN | ACK))
            self.sseq += 1
            self.frames.append(self._frame(True, b"", ACK))

    def _frame(self, from_client, payload, flags, ack=None, caplen=None):
        build = tcp6 if self.v6 else tcp4
        if from_client:
            data = build(self.cp, self.sp, self.cseq, self.sseq if ack is None else ack, flags,
                         src=self.ca, dst=self.sa, payload=payload)
        else:
            data = build(self.sp, self.cp, self.sseq, self.cseq if ack is None else ack, flags,
                         src=self.sa, dst=self.ca, payload=payload)
        return Record(data, caplen=caplen) if caplen is not None else data

    def c(self, payload, flags=PSH | ACK, caplen=None):
        frame = self._frame(True, payload, flags, caplen=caplen)
        self.cseq += len(payload)
        self.frames.append(frame)
        return self

    def s(self, payload, flags=PSH | ACK, caplen=None):
        frame = self._frame(False, payload, flags, caplen=caplen)
        self.sseq += len(payload)
        self.frames.append(frame)
        return self


HEADERS = 14 + 20 + 20  # Ethernet, IPv4, TCP without options: caplen offsets into the payload


def sip_datagram(payload, sport=5060, dport=5060, v6=False, caplen=None, length=None):
    if v6:
        frame = ether(ipv6(udp(sport, dport, payload, length=length, src=V6_A, dst=V6_B, v6=True), nh=17), ETHERTYPE_IPV6)
    else:
        frame = ether(ipv4(udp(sport, dport, payload, length=length), proto=17))
    return Record(frame, caplen=caplen) if caplen is not None else frame


def http():
    """HTTP on 80 and 8080, RTSP on 554 and 8554, SIP over UDP 5060: the protocols whose payloads
    are printed only when they start like a request or a response."""
    frames = []
    web = Conversation(40001, 80, handshake=True)
    web.c(b"GET /index.html HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n")
    web.s(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 46\r\nX-Tab:\tvalue\r\n\r\n"
          b"<html>\r\n<body>Hello</body>\r\n</html>\r\n")
    web.c(b"POST /api/items HTTP/1.1\r\nHost: www.example.com\r\nContent-Type: application/json\r\n"
          b"Content-Length: 50\r\n\r\n" + JSON.rstrip(b"\r\n"))
    web.s(b"HTTP/1.1 201 Created\r\nLocation: /api/items/7\r\nContent-Encoding: gzip\r\n\r\n"
          b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcb\x48\xcd\xc9\xc9\x07\x00")
    # A request split over two segments: the second has neither method nor status code.
    web.c(b"GET /a/rather/long/path?query=1 HTTP/1.1\r\nHost: www.exa")
    web.c(b"mple.com\r\nAccept: text/plain\r\n\r\n")
    # Binary data, LF-only lines, no line end at all, a lone CR, a control character.
    web.s(bytes(range(0, 64)))
    web.c(b"HEAD / HTTP/1.0\nHost: lf.example\n\n")
    web.c(b"GET /no-line-end HTTP/1.1")
    web.c(b"GET / HTTP/1.1\rHost: cr.example\r\n\r\n")
    web.c(b"GET /\x01 HTTP/1.1\r\n\r\n")
    web.c(b"GET /caf\xc3\xa9 HTTP/1.1\r\n\r\n")
    # Case, other methods, unknown ones, status codes of the wrong size, odd spacing.
    web.c(b"get /lower HTTP/1.1\r\n\r\n")
    web.c(b"PROPFIND /dav/ HTTP/1.1\r\nDepth: 1\r\n\r\n")
    web.c(b"VERSION-CONTROL /dav/file HTTP/1.1\r\n\r\n")
    web.c(b"FETCH /unknown HTTP/1.1\r\n\r\n")
    web.s(b"HTTP/1.1 2000 Too Many Digits\r\n\r\n")
    web.s(b"HTTP/1.1 20 Too Few\r\n\r\n")
    web.s(b"HTTP/1.1   404   Not Found\r\n\r\n")
    web.c(b"GET\t/tab HTTP/1.1\r\n\r\n")
    web.c(b" GET /leading-space HTTP/1.1\r\n\r\n")
    web.c(b"\r\nGET /after-empty-line HTTP/1.1\r\n\r\n")
    web.c(b"X" * 128 + b" 200 token of 128\r\n")
    web.c(b"X" * 129 + b" 200 token of 129\r\n")
    web.c(b"GET")
    web.c(b"ABCDEFGH 123")
    web.c(b"\tGET / HTTP/1.1\r\n\r\n")
    web.c(b"GET /cr-at-end HTTP/1.1\r\nHost: x\r")
    web.s(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n\tindented\n\r\n")
    web.s(b"HTTP/1.1 400 Bad Request\r\n\r\n", flags=RST | ACK)
    # Cut by the capture: in the method, in the request line, in the headers.
    req = b"GET /cut HTTP/1.1\r\nHost: cut.example\r\nAccept: */*\r\n\r\n"
    web.c(req, caplen=HEADERS + 2)
    web.c(req, caplen=HEADERS + 10)
    web.c(req, caplen=HEADERS + 25)
    web.s(b"HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n", flags=FIN | PSH | ACK)
    frames += web.frames

    # A WebSocket upgrade on 8080, then a masked frame (binary to the printer).
    ws = Conversation(40002, 8080)
    ws.c(b"GET /chat HTTP/1.1\r\nHost: ws.example:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    ws.s(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
    ws.c(b"\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58")
    ws.s(b"\x81\x05Hello")
    frames += ws.frames

    # IPv6, 8080 as the client's port, an empty-bodied response.
    v6 = Conversation(8080, 40003, v6=True)
    v6.c(b"OPTIONS * HTTP/1.1\r\nHost: [2001:db8::20]\r\n\r\n")
    v6.s(b"HTTP/1.1 405 Method Not Allowed\r\nAllow: GET\r\n\r\n")
    frames += v6.frames

    # RTSP on 554 and 8554: requests, a response with an SDP body, interleaved RTP.
    rtsp = Conversation(40004, 554)
    rtsp.c(b"OPTIONS rtsp://192.0.2.20/stream RTSP/1.0\r\nCSeq: 1\r\n\r\n")
    rtsp.s(b"RTSP/1.0 200 OK\r\nCSeq: 1\r\nPublic: DESCRIBE, SETUP, TEARDOWN, PLAY, PAUSE\r\n\r\n")
    rtsp.c(b"DESCRIBE rtsp://192.0.2.20/stream RTSP/1.0\r\nCSeq: 2\r\nAccept: application/sdp\r\n\r\n")
    rtsp.s(b"RTSP/1.0 200 OK\r\nCSeq: 2\r\nContent-Type: application/sdp\r\nContent-Length: 60\r\n\r\n"
           b"v=0\r\no=- 0 0 IN IP4 192.0.2.20\r\ns=Stream\r\nm=video 0 RTP/AVP 96\r\n")
    rtsp.c(b"PLAY rtsp://192.0.2.20/stream RTSP/1.0\r\nCSeq: 4\r\nSession: 12345678\r\n\r\n")
    rtsp.s(b"$\x00\x00\x10\x80\x60\x00\x01\x00\x00\x00\x00\x12\x34\x56\x78\xde\xad\xbe\xef")
    rtsp.c(b"get_parameter rtsp://192.0.2.20/stream RTSP/1.0\r\nCSeq: 5\r\n\r\n")
    rtsp.c(b"GET / HTTP/1.1\r\n\r\n")
    rtsp.c(b"TEARDOWN rtsp://192.0.2.20/stream RTSP/1.0\r\nCSeq: 6\r\n", caplen=HEADERS + 30)
    frames += rtsp.frames
    alt = Conversation(40005, 8554)
    alt.c(b"SETUP rtsp://192.0.2.20/stream/track1 RTSP/1.0\r\nCSeq: 3\r\nTransport: RTP/AVP;unicast\r\n\r\n")
    alt.s(b"RTSP/1.0 454 Session Not Found\r\nCSeq: 3\r\n\r\n")
    frames += alt.frames

    # SIP over UDP 5060.
    invite = (b"INVITE sip:bob@example.com SIP/2.0\r\nVia: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776asdhds\r\n"
              b"From: Alice <sip:alice@example.com>;tag=1928301774\r\nTo: Bob <sip:bob@example.com>\r\n"
              b"Call-ID: a84b4c76e66710@192.0.2.10\r\nCSeq: 314159 INVITE\r\nContent-Type: application/sdp\r\n"
              b"Content-Length: 31\r\n\r\nv=0\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\n")
    frames.append(sip_datagram(invite))
    frames.append(sip_datagram(b"SIP/2.0 100 Trying\r\nCSeq: 314159 INVITE\r\n\r\n"))
    frames.append(sip_datagram(b"SIP/2.0 200 OK\r\nCSeq: 314159 INVITE\r\nContact: <sip:bob@198.51.100.20>\r\n\r\n"))
    frames.append(sip_datagram(b"ACK sip:bob@198.51.100.20 SIP/2.0\r\nCSeq: 314159 ACK\r\n\r\n", sport=5062))
    frames.append(sip_datagram(b"BYE sip:bob@198.51.100.20 SIP/2.0\r\nCSeq: 314160 BYE\r\n\r\n", dport=5080))
    frames.append(sip_datagram(b"register sip:example.com SIP/2.0\r\nExpires: 3600\r\n\r\n", v6=True))
    frames.append(sip_datagram(b"\r\n\r\n"))
    frames.append(sip_datagram(b""))
    frames.append(sip_datagram(b"HELLO sip:x SIP/2.0\r\n\r\n"))
    frames.append(sip_datagram(invite, caplen=14 + 20 + 8 + 20))
    frames.append(sip_datagram(invite, caplen=14 + 20 + 8 + 90))
    # The UDP length covers only the request line: the rest is not SIP's.
    frames.append(sip_datagram(b"OPTIONS sip:x SIP/2.0\r\nMax-Forwards: 70\r\n\r\n", length=8 + 23))
    return frames


def lines():
    """FTP, SMTP and whois (every payload is printed as lines) and SSH (only its banner line)."""
    frames = []
    ftp = Conversation(40010, 21, handshake=True)
    ftp.s(b"220 (vsFTPd 3.0.3)\r\n")
    ftp.c(b"USER anonymous\r\n")
    ftp.s(b"331 Please specify the password.\r\n")
    ftp.c(b"PASS guest@\r\n")
    ftp.s(b"230 Login successful.\r\n")
    ftp.c(b"FEAT\r\n")
    ftp.s(b"211-Features:\r\n EPRT\r\n EPSV\r\n MDTM\r\n PASV\r\n SIZE\r\n UTF8\r\n211 End\r\n")
    ftp.c(b"PASV\r\n")
    ftp.s(b"227 Entering Passive Mode (198,51,100,20,195,80).\r\n")
    ftp.c(b"RETR caf\xc3\xa9.txt\r\n")
    ftp.s(b"150 Opening BINARY mode data connection.\r\n226 Transfer complete.\r\n")
    ftp.c(b"NOOP")
    ftp.c(b"\xff\xf4\xff\xf2ABOR\r\n")
    ftp.c(b"QUIT\r\n", caplen=HEADERS + 2)
    ftp.s(b"221 Goodbye.\r\n", flags=FIN | PSH | ACK)
    frames += ftp.frames

    smtp = Conversation(40011, 25)
    smtp.s(b"220 mail.example.com ESMTP Postfix\r\n")
    smtp.c(b"EHLO client.example.org\r\n")
    smtp.s(b"250-mail.example.com\r\n250-PIPELINING\r\n250-SIZE 10240000\r\n250-STARTTLS\r\n250 8BITMIME\r\n")
    smtp.c(b"MAIL FROM:<alice@example.org>\r\nRCPT TO:<bob@example.com>\r\nDATA\r\n")
    smtp.s(b"250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n")
    smtp.c(b"From: Alice <alice@example.org>\r\nSubject: Hello\r\n\r\nHi Bob,\r\n\tsee you.\r\n.\r\n")
    smtp.c(b"Subject: =?utf-8?q?caf=C3=A9?=\r\n\r\nCaf\xc3\xa9\r\n.\r\n")
    smtp.s(b"250 2.0.0 Ok: queued as 4F2A81C0\r\n")
    smtp.c(b"QUIT\n")
    smtp.s(b"221 2.0.0 Bye\r")
    frames += smtp.frames

    whois = Conversation(40012, 43)
    whois.c(b"example.com\r\n")
    whois.s(b"% IANA WHOIS server\r\n% for more information on IANA, visit http://www.iana.org\r\n\r\n"
            b"domain:       EXAMPLE.COM\r\n\r\norganisation: Internet Assigned Numbers Authority\r\n"
            b"source:       IANA\r\n", flags=FIN | PSH | ACK)
    frames += whois.frames
    whois6 = Conversation(40013, 43, v6=True)
    whois6.c(b"2001:db8::/32\n")
    whois6.s(b"inetnum: 2001:db8::/32\nnetname: DOCUMENTATION", caplen=14 + 40 + 20 + 20)
    frames += whois6.frames

    # SSH banners and what follows them.
    ssh = Conversation(40014, 22, handshake=True)
    ssh.c(b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n")
    ssh.s(b"SSH-2.0-dropbear_2022.83\n")
    kexinit = b"\x00\x00\x05\xdc\x06\x14" + bytes(range(16)) + b"\x00\x00\x01\x0acurve25519-sha256,ext-info-c"
    ssh.c(kexinit)
    ssh.s(b"\x00\x00\x00\x0c\x0a\x15" + bytes(10))
    frames += ssh.frames
    other = Conversation(40015, 22)
    other.c(b"SSH-1.99-Cisco-1.25\r\nextra data after the banner\r\n")
    other.c(b"SSH-2.0-no-line-end")
    other.c(b"SSH-2.0-lone-cr\r")
    other.c(b"SSH-2.0-cr-then-x\rx\n")
    other.c(b"SSH-2.0-tab\there\r\n")
    other.c(b"SSH-")
    other.c(b"SSH")
    other.c(b"ssh-2.0-lower\r\n")
    other.c(b"Not an SSH banner\r\n")
    other.c(b"SSH-2.0-OpenSSH_9.2p1\r\n", caplen=HEADERS + 2)
    other.c(b"SSH-2.0-OpenSSH_9.2p1\r\n", caplen=HEADERS + 12)
    frames += other.frames
    six = Conversation(22, 40016, v6=True)
    six.c(b"SSH-2.0-OpenSSH_8.9\r\n")
    frames += six.frames
    # Two claimed ports: tcpdump's order decides (FTP before HTTP, RESP before SSH, SMTP before FTP).
    both = Conversation(80, 21)
    both.c(b"GET / HTTP/1.1\r\n\r\n")
    frames += both.frames
    both = Conversation(22, 6379)
    both.c(b"SSH-2.0-OpenSSH_9.2p1\r\n")
    frames += both.frames
    both = Conversation(21, 25)
    both.c(b"HELO x\r\n")
    frames += both.frames
    return frames


IAC, DONT, DO, WONT, WILL, SB, SE, TNOP = 255, 254, 253, 252, 251, 250, 240, 241


def telnet():
    t = Conversation(40020, 23, handshake=True)
    t.s(bytes([IAC, DO, 24, IAC, DO, 32, IAC, DO, 35, IAC, DO, 39]))
    t.c(bytes([IAC, WILL, 24, IAC, WONT, 32, IAC, WONT, 35, IAC, WILL, 39]))
    t.s(bytes([IAC, SB, 24, 1, IAC, SE, IAC, SB, 39, 1, IAC, SE]))
    t.c(bytes([IAC, SB, 24, 0]) + b"xterm-256color" + bytes([IAC, SE]))
    t.s(bytes([IAC, WILL, 1, IAC, WILL, 3, IAC, DONT, 34, IAC, DO, 31]))
    t.c(bytes([IAC, SB, 31, 0, 80, 0, 24, IAC, SE]))
    t.s(b"Debian GNU/Linux 12\r\nlogin: ")
    t.s(bytes([IAC, WILL, 1]) + b"Password: ")
    # Every command code, IAC IAC, options without a name, unknown qualifiers.
    t.c(bytes([IAC, TNOP, IAC, 242, IAC, 243, IAC, 244, IAC, 245, IAC, 246, IAC, 247, IAC, 248, IAC, 249]))
    t.c(bytes([IAC, 236, IAC, 237, IAC, 238, IAC, 239, IAC, SE, IAC, IAC, IAC, TNOP]))
    t.c(bytes([IAC, DO, 40, IAC, WILL, 0x55, IAC, DONT, 255, IAC, WONT, 0]))
    t.c(bytes([IAC, SB, 1, IAC, SE, IAC, SB, 24, 7, IAC, SE, IAC, SB, 0x64, 2, 0, 0x7F, IAC, SE]))
    t.c(bytes([IAC, SB, 37, 1, 2, 0, IAC, SE, IAC, SB, 37, 0, 8, 3, IAC, SE, IAC, SB, 37, 9, 99, IAC, SE]))
    t.c(bytes([IAC, SB, 38, 1, 1, 2, IAC, SE, IAC, SB, 38, 3, 5, IAC, SE, IAC, SB, 38, 12, IAC, SE]))
    t.c(bytes([IAC, SB, 24, 0, ord("a"), IAC, IAC, ord("b"), IAC, SE]))
    # Malformed or cut: unknown command, lone IAC at the end, WILL without its option, SB without
    # IAC SE (last byte IAC, or not), a long SB (more than 8 bytes), data before the IAC.
    t.c(bytes([IAC, 0x41, IAC, TNOP]))
    t.c(bytes([IAC, TNOP, IAC]))
    t.c(bytes([IAC, WILL, 1, IAC, WILL]))
    t.c(bytes([IAC, WILL, 1, IAC, SB, 24, 0, ord("v"), ord("t"), IAC]))
    t.c(bytes([IAC, SB, 24, IAC]))
    t.c(bytes([IAC, SB, 24, 0, ord("v"), ord("t")]))
    t.c(bytes([IAC, SB, 24]))
    t.c(bytes([IAC, SB, 24, 0]) + b"a-terminal-type-name-longer-than-sixteen" + bytes([IAC, SE, IAC, DO, 1]))
    t.c(b"ls -l\r\n" + bytes([IAC, TNOP]))
    # Cut by the capture: inside the first command, inside the second, inside an SB.
    neg = bytes([IAC, WILL, 1, IAC, DO, 3, IAC, SB, 24, 0, ord("x"), IAC, SE])
    t.c(neg, caplen=HEADERS + 2)
    t.c(neg, caplen=HEADERS + 5)
    t.c(neg, caplen=HEADERS + 9)
    t.c(neg, caplen=HEADERS + 12)
    frames = t.frames
    six = Conversation(23, 40021, v6=True)
    six.c(bytes([IAC, DO, 1, IAC, 249]))
    frames += six.frames
    return frames


def resp():
    r = Conversation(40030, 6379, handshake=True)
    r.c(b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n")
    r.s(b"+OK\r\n")
    r.c(b"*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n")
    r.s(b"$5\r\nvalue\r\n")
    r.c(b"*2\r\n$4\r\nINCR\r\n$1\r\nz\r\n*2\r\n$4\r\nINCR\r\n$1\r\nz\r\n")
    r.s(b":1\r\n:-42\r\n")
    r.s(b"-ERR unknown command 'FOO', with args beginning with: \r\n")
    r.s(b"$-1\r\n*-1\r\n*0\r\n$0\r\n\r\n")
    r.s(b"*2\r\n*3\r\n:1\r\n:2\r\n:3\r\n*2\r\n+Foo\r\n-Bar\r\n")
    r.s(b"*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n+deep\r\n")
    r.s(b"$8\r\n\x00\x01\x7f\x80\xff\r\n\t\r\n")
    # Inline commands: CR-LF, LF only, several, leading line ends, no line end.
    r.c(b"PING\r\n")
    r.c(b"PING\r\nPING\r\nECHO hi\n\n")
    r.c(b"\r\n\nSET k v\r\n")
    r.c(b"INFO server")
    r.c(b"\r\n")
    # Malformed lengths: too large, negative, invalid, cut, not followed by CR-LF.
    r.s(b"$99999999999\r\n")
    r.s(b"$2147483647\r\nabc\r\n")
    r.s(b"$2147483648\r\n")
    r.s(b"$-5\r\n")
    r.s(b"$-1x\r\n")
    r.s(b"$abc\r\n")
    r.s(b"$5x\r\nhello\r\n")
    r.s(b"$5\rxhello\r\n")
    r.s(b"$5\r")
    r.s(b"$12")
    r.s(b"$")
    r.s(b"$-")
    r.s(b"$100\r\nshort\r\n")
    r.s(b"$3\r\nabcXYZ\r\n:7\r\n")
    r.s(b"$3\r\nabc")
    r.s(b"+no line end")
    r.s(b"+lone cr\r")
    r.s(b"*2147483647\r\n:1\r\n:2\r\n")
    r.s(b"*2147483648\r\n*-2\r\n*x\r\n")
    r.s(b"*3\r\n:1\r\n")
    r.s(b"*-1\r\n*" + b"9" * 30 + b"\r\n")
    # Cut by the capture: in a bulk string (checked), in a length (a plain read), in an inline.
    r.c(b"*2\r\n$4\r\nECHO\r\n$11\r\nhello world\r\n", caplen=HEADERS + 18)
    r.c(b"*2\r\n$4\r\nECHO\r\n$11\r\nhello world\r\n", caplen=HEADERS + 2)
    r.c(b"*2\r\n$4\r\nECHO\r\n$11\r\nhello world\r\n", caplen=HEADERS + 16)
    r.c(b"PING\r\n", caplen=HEADERS + 2)
    frames = r.frames
    six = Conversation(6379, 40031, v6=True)
    six.c(b"+PONG\r\n")
    frames += six.frames
    return frames


def captures():
    return {
        "crafted-text-http.pcap": (1, http()),
        "crafted-text-lines.pcap": (1, lines()),
        "crafted-text-telnet.pcap": (1, telnet()),
        "crafted-text-resp.pcap": (1, resp()),
    }
