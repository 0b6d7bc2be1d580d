/// A dissector ran off the end of the captured bytes.
struct Truncated: Error {}
