/// A TCP conversation's sequence-number bases: `sender` for the side with the lower port (or
/// lower address on equal ports), `receiver` for the other side.
struct SequenceBases {
    var sender: UInt32
    var receiver: UInt32
}
