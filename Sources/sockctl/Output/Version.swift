/// What `sockctl --version` prints: the release, and the build it is —
/// `sockctl 0.1.0 (commit 3ef853e, Swift 6.3.1, release)`. The commit and the compiler come
/// from the BuildStamp plugin (`BuildStamp`, generated at build time); the configuration from
/// how this file was compiled.
enum Version {
    /// The release of the command line.
    static let number = "0.1.0"

    /// `debug` or `release`.
    static var configuration: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    /// The whole line `--version` prints.
    static let line = "sockctl \(number) (commit \(BuildStamp.commit), Swift \(BuildStamp.swiftVersion), \(configuration))"
}
