/// What `sockctl capture` prints for each packet: tcpdump's `-x/-X/-A`, `-t…`, `-S`, `-e` and
/// `--nano` choices in one value shared by every protocol printer.
public struct PrintOptions: Sendable, Equatable {
    /// The dump after the header line.
    public enum Dump: Sendable, Equatable {
        /// Header line only (tcpdump's default, sockctl's `--no-dump`).
        case none
        /// `-x`: hex only.
        case hex
        /// `-X`: hex and ASCII (sockctl's default).
        case hexAndASCII
        /// `-A`: ASCII only.
        case ascii
    }

    /// tcpdump's `-t` family.
    public enum TimestampStyle: Sendable, Equatable {
        /// No flag: local time of day, `05:15:10.099358`.
        case timeOfDay
        /// `-t`: no timestamp.
        case none
        /// `-tt`: seconds since the Unix epoch.
        case unixSeconds
        /// `-ttt`: time since the previous packet.
        case sincePrevious
        /// `-tttt`: local date and time.
        case dateAndTime
        /// `-ttttt`: time since the first packet.
        case sinceFirst
    }

    package var dump: Dump
    /// `-XX`, `-xx`, `-AA`: the dump starts at the link-layer header instead of after it.
    package var dumpIncludesLinkHeader: Bool
    /// Which timestamp starts each header line (`-t` … `-ttttt`).
    public var timestamps: TimestampStyle
    /// `--nano`: nine fraction digits instead of six.
    public var nanoseconds: Bool
    /// `-S`: absolute TCP sequence numbers.
    public var absoluteSequenceNumbers: Bool
    /// `-e`: print the link-level header.
    public var linkHeader: Bool
    /// `-v`, `-vv`, `-vvv`: how much of each header tcpdump's verbose modes print (0 to 3).
    public var verbosity: Int
    /// `--decode`: the views beyond tcpdump printed after each header line (none by default, so
    /// the output is tcpdump's).
    public var views: ProtocolViews
    /// How many times `-q` was given. Once: tcpdump's quick output — `tcp N` for TCP, `UDP,
    /// length N` without the application, `igmp`, DCCP's length only, the link types' short
    /// names with `-e`, no default dump. Twice or more (tcpdump 4.99.3's `ndo_qflag > 1`): also
    /// nothing after `IP ` for an IPv4 fragment that is not the first.
    public var quietness = 0

    /// `-q` was given at least once (see ``quietness``).
    public var quick: Bool {
        get { quietness > 0 }
        set { quietness = newValue ? max(quietness, 1) : 0 }
    }

    /// Each choice given directly; the defaults are sockctl's without flags (`-X`, time of day, µs).
    /// ``init(_:)`` makes one from tcpdump's letters instead.
    public init(
        dump: Dump = .hexAndASCII, dumpIncludesLinkHeader: Bool = false, timestamps: TimestampStyle = .timeOfDay,
        nanoseconds: Bool = false, absoluteSequenceNumbers: Bool = false, linkHeader: Bool = false,
        verbosity: Int = 0, views: ProtocolViews = []
    ) {
        self.dump = dump
        self.dumpIncludesLinkHeader = dumpIncludesLinkHeader
        self.timestamps = timestamps
        self.nanoseconds = nanoseconds
        self.absoluteSequenceNumbers = absoluteSequenceNumbers
        self.linkHeader = linkHeader
        self.verbosity = verbosity
        self.views = views
    }

    /// `-x` and `-X` suppress tcpdump's implicit hex dump of payloads it has no decoder for;
    /// `-A` and no dump flag do not.
    var suppressesDefaultDump: Bool { dump == .hex || dump == .hexAndASCII || quick }
}
