import NIOCore
import PacketDecoding
import SocketEngine

struct UDPFlow {
    var number: Int
    var client: TCPReassembler.Endpoint
}

struct UDPFlowKey: Hashable {
    var low: TCPReassembler.Endpoint
    var high: TCPReassembler.Endpoint

    init(_ one: TCPReassembler.Endpoint, _ other: TCPReassembler.Endpoint) {
        (low, high) = other < one ? (other, one) : (one, other)
    }
}
