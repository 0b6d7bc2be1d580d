#!/usr/bin/env bash
# Fuzzes the packet decoder under libFuzzer + AddressSanitizer for a bounded time.
# Usage: fuzz/run.sh [seconds-per-target]   (default 30; `make fuzz` passes more)
#        FUZZ_TARGETS="reassembly" fuzz/run.sh 60   (a subset of the targets)
# Targets (built with swiftc -sanitize=fuzzer,address; the first four together with every file
# under Sources/PacketDecoding):
#   frames  fuzz/FuzzFrames.swift: one link-layer frame: printer (two option sets), segment, JSON
#   files   fuzz/FuzzFiles.swift:  a whole pcap/pcapng file, read, printed and reassembled
#   reassembly fuzz/FuzzReassembly.swift: TCPReassembler on a scripted segment sequence
#   decrypt fuzz/FuzzDecrypt.swift: a TLS key log and a connection's two byte streams through
#           TLSKeyLog, TLSConnectionDecryptor and the views with --keylog (seeds: the recorded
#           sessions of Tests/Fixtures/TLS by fuzz/decrypt-seeds.py)
#   merge   fuzz/FuzzMerge.swift:  `report merge` input, one or two JSON part files: decoded,
#           validated, merged, printed, re-encoded and read back (Sources/LoadGen/Report with
#           LoadGenError, Threshold and HTTPStatusCounts, over hdrhistogram-swift and zlib: see build_merge)
#   inflate fuzz/FuzzInflate.swift: one WebSocket direction with permessage-deflate agreed, through
#           WebSocketStreamDecoder (compressed messages inflated, context kept or reset), each
#           item printed as text and JSON and checked (built like frames, over the WebSocketDeflate
#           module compiled first: see build_deflate)
#   hpack   fuzz/FuzzHPACK.swift:  HTTP/2 header blocks (NIOHPACK, one table per input), CONTINUATION,
#           padding, PUSH_PROMISE and gRPC messages through HTTP2StreamDecoder, each item printed
#           as text and JSON (built with Sources/PacketDecoding like the first three)
#   http    fuzz/FuzzHTTP.swift:   HTTPMessageScanner (the one HTTP/1.1 cutter) on a byte stream
#           fed whole and in pieces, with its invariants checked (built with the scanner's
#           files of Sources/HTTPScanning alone: see build_http)
# All run at once (one process each). Seeds: every *.pcap / *.pcapng under Tests/ plus a
# generated 400-packet pcap, split into frames by fuzz/seeds.py; for merge the report files
# under Tests/Reports, alone and in pairs, with fuzz/merge.dict as libFuzzer's dictionary; for
# http the messages in fuzz/regressions/http, with fuzz/http.dict.
# fuzz/regressions/TARGET/ holds inputs that once failed, replayed before fuzzing. Binaries,
# the growing corpus and crash artifacts live in $FUZZ_DIR (default .build/fuzz). Exits non-zero
# if a target crashed, leaked, timed out (> 5 s on one input) or went over 2 GiB, and prints the input.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_PER_TARGET=${1:-30}
OUT=${FUZZ_DIR:-$ROOT/.build/fuzz}
SWIFTC=${SWIFTC:-swiftc}
TARGETS=(${FUZZ_TARGETS:-frames files reassembly decrypt merge http inflate hpack})
for name in "${TARGETS[@]}"; do mkdir -p "$OUT/corpus/$name"; done
mkdir -p "$OUT/bin" "$OUT/artifacts"
cd "$ROOT"
# A fixed TZ keeps glibc's tzset() (called by every new printer) from stat-ing /etc/localtime;
# Swift's own backtracer would read the crashed stack and trip ASan, hiding the real report.
export TZ=UTC SWIFT_BACKTRACE=enable=no

# build_deflate: PacketDecoding imports WebSocketDeflate (the views inflate permessage-deflate):
# it is compiled first, instrumented, as a module of its own over the system's zlib (Sources/CZlib).
DEFLATE=$OUT/deflate-deps
build_deflate() {
    local sources
    mapfile -t sources < <(find Sources/WebSocketDeflate -name '*.swift' | sort)
    if [ -f "$DEFLATE/WebSocketDeflate.o" ] && [ -z "$(find "${sources[@]}" -newer "$DEFLATE/WebSocketDeflate.o" 2>/dev/null)" ] \
        && [ "$(printf '%s\n' "${sources[@]}" | sha256sum)" = "$(cat "$DEFLATE/sources" 2>/dev/null)" ]; then
        return 0
    fi
    echo "==> building the WebSocketDeflate module"
    rm -rf "$DEFLATE"
    mkdir -p "$DEFLATE"
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -wmo -module-name WebSocketDeflate -package-name sockctl \
        -Xcc -fmodule-map-file=Sources/CZlib/module.modulemap \
        -emit-module -emit-module-path "$DEFLATE/WebSocketDeflate.swiftmodule" -c -o "$DEFLATE/WebSocketDeflate.o" "${sources[@]}"
    printf '%s\n' "${sources[@]}" | sha256sum > "$DEFLATE/sources"
}

# build_scanning: PacketDecoding imports HTTPScanning (the HTTP/1.1 view cuts messages with
# HTTPMessageScanner): compiled first, instrumented, as a module of its own (standard library and
# Glibc only).
SCANNING=$OUT/scanning-deps
build_scanning() {
    local sources
    mapfile -t sources < <(find Sources/HTTPScanning -name '*.swift' | sort)
    if [ -f "$SCANNING/HTTPScanning.o" ] && [ -z "$(find "${sources[@]}" -newer "$SCANNING/HTTPScanning.o" 2>/dev/null)" ] \
        && [ "$(printf '%s\n' "${sources[@]}" | sha256sum)" = "$(cat "$SCANNING/sources" 2>/dev/null)" ]; then
        return 0
    fi
    echo "==> building the HTTPScanning module"
    rm -rf "$SCANNING"
    mkdir -p "$SCANNING"
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -wmo -module-name HTTPScanning -package-name sockctl \
        -emit-module -emit-module-path "$SCANNING/HTTPScanning.swiftmodule" -c -o "$SCANNING/HTTPScanning.o" "${sources[@]}"
    printf '%s\n' "${sources[@]}" | sha256sum > "$SCANNING/sources"
}

# build_proxy: PacketDecoding imports ProxyProtocol (the PROXY protocol view): compiled first,
# instrumented, as a module of its own over the debug build's NIOCore (see nio_deps).
PROXY=$OUT/proxy-deps
build_proxy() {
    local sources flags=() entry
    mapfile -t sources < <(find Sources/ProxyProtocol -name '*.swift' | sort)
    if [ -f "$PROXY/ProxyProtocol.o" ] && [ -z "$(find "${sources[@]}" -newer "$PROXY/ProxyProtocol.o" 2>/dev/null)" ] \
        && [ "$(printf '%s\n' "${sources[@]}" | sha256sum)" = "$(cat "$PROXY/sources" 2>/dev/null)" ]; then
        return 0
    fi
    echo "==> building the ProxyProtocol module"
    nio_deps
    for entry in "${DEPS[@]}"; do [[ $entry == *.o ]] || flags+=("$entry"); done
    rm -rf "$PROXY"
    mkdir -p "$PROXY"
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -wmo -module-name ProxyProtocol -package-name sockctl "${flags[@]}" \
        -emit-module -emit-module-path "$PROXY/ProxyProtocol.swiftmodule" -c -o "$PROXY/ProxyProtocol.o" "${sources[@]}"
    printf '%s\n' "${sources[@]}" | sha256sum > "$PROXY/sources"
}

# PacketDecoding imports NIOHPACK (swift-nio-http2), which imports NIO: the targets built with
# Sources/PacketDecoding link SwiftPM's own debug build of those modules (uninstrumented: the
# fuzzer's coverage and ASan are PacketDecoding's), found by their module files and module maps
# under .build/debug, their objects under .build/debug/TARGET.build.
NIO_TARGETS=(NIOHPACK NIO NIOCore NIOPosix NIOConcurrencyHelpers NIOHTTP1 _NIODataStructures _NIOBase64 CNIOLinux CNIOPosix
    CNIOAtomics CNIOLLHTTP CNIODarwin CNIOWindows CNIOWASI CNIOFreeBSD CNIOOpenBSD Atomics _AtomicsShims DequeModule
    InternalCollectionsUtilities ContainersPreview BasicContainers)
DEPS=()
nio_deps() {
    [ ${#DEPS[@]} -gt 0 ] && return 0
    swift build --target NIOHPACK > /dev/null
    local debug=.build/debug map object target
    DEPS=(-I "$debug/Modules")
    for map in "$debug"/*.build/module.modulemap .build/checkouts/swift-atomics/Sources/_AtomicsShims/include/module.modulemap; do
        DEPS+=(-Xcc "-fmodule-map-file=$map")
    done
    for target in "${NIO_TARGETS[@]}"; do
        while IFS= read -r -d '' object; do DEPS+=("$object"); done < <(find "$debug/$target.build" -name '*.o' -print0)
    done
}

# PacketDecoding imports swift-crypto (TLS decryption): the fuzz targets compile against the
# debug build's Crypto module and link its objects (BoringSSL included), built by SwiftPM once.
crypto_flags() {
    [ -f .build/debug/Modules/Crypto.swiftmodule ] || swift build --target Crypto >&2
    CRYPTO_FLAGS=(-I .build/debug/Modules)
    local objects
    mapfile -t objects < <(find .build/debug/Crypto.build .build/debug/CryptoBoringWrapper.build .build/debug/CCryptoBoringSSL.build \
        .build/debug/CCryptoBoringSSLShims.build -name '*.o' | sort)
    CRYPTO_FLAGS+=("${objects[@]}")
}

# build NAME FILE: rebuilds $OUT/bin/NAME when a source is newer than it.
build() {
    local name=$1 file=$2 bin=$OUT/bin/$1
    local sources
    build_deflate
    build_scanning
    build_proxy
    mapfile -t sources < <(find Sources/PacketDecoding -name '*.swift' | sort)
    sources+=(fuzz/FuzzSupport.swift "$file")
    if [ -x "$bin" ] && [ -z "$(find "${sources[@]}" "$DEFLATE/WebSocketDeflate.o" "$SCANNING/HTTPScanning.o" "$PROXY/ProxyProtocol.o" -newer "$bin" 2>/dev/null)" ] \
        && [ "$(find Sources/PacketDecoding -name '*.swift' | sort | sha256sum)" = "$(cat "$bin.sources" 2>/dev/null)" ]; then
        return 0
    fi
    echo "==> building fuzz target $name"
    nio_deps
    crypto_flags
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -use-ld=lld -module-name PacketDecoding -package-name sockctl \
        -I "$DEFLATE" -I "$SCANNING" -I "$PROXY" -Xcc -fmodule-map-file=Sources/CZlib/module.modulemap \
        "${sources[@]}" "$DEFLATE/WebSocketDeflate.o" "$SCANNING/HTTPScanning.o" "$PROXY/ProxyProtocol.o" "${DEPS[@]}" "${CRYPTO_FLAGS[@]}" -o "$bin.tmp"
    mv "$bin.tmp" "$bin"
    find Sources/PacketDecoding -name '*.swift' | sort | sha256sum > "$bin.sources"
}
# build_merge: the report files do not import SocketEngine, NIO or the rest of LoadGen (keep it
# so): they compile as a module LoadGen of their own over the packages they import, each
# compiled once from .build/checkouts into $OUT/merge-deps — swift-numerics' RealModule,
# ComplexModule and Numerics, which hdrhistogram-swift imports; Histogram itself, instrumented
# (the traps the merge guards against are in it); and SocketEngine's TextFormatting.swift, the
# one SocketEngine file the report's text uses. zlib is the system's (Sources/CZlib).
build_merge() {
    local bin=$OUT/bin/merge deps=$OUT/merge-deps
    [ -d .build/checkouts/hdrhistogram-swift ] || swift package resolve
    local numerics=.build/checkouts/swift-numerics/Sources histogram=.build/checkouts/hdrhistogram-swift/Sources/Histogram
    local shims=$numerics/_NumericsShims/include
    # The part of SocketEngine the report code uses: number and duration text, and the typed
    # setting names its errors and warnings are written in.
    local engine=(Sources/SocketEngine/Support/TextFormatting.swift Sources/SocketEngine/Support/SettingKey.swift Sources/SocketEngine/Support/SettingText.swift)
    # Rebuilt when a file is newer than the objects or the slice itself changed (its files and
    # their contents: a checkout can bring files older than the objects).
    local slice
    slice=$(cat "${engine[@]}" | sha256sum)
    if [ ! -f "$deps/SocketEngine.o" ] || [ "$slice" != "$(cat "$deps/SocketEngine.slice" 2>/dev/null)" ] \
        || [ -n "$(find "$histogram" "$numerics" "${engine[@]}" -newer "$deps/SocketEngine.o" -name '*.swift' 2>/dev/null | head -n 1)" ]; then
        echo "==> building the merge target's packages"
        rm -rf "$deps"
        mkdir -p "$deps"
        # module NAME SANITIZE SOURCES...: one object and one module file per package.
        module() {
            local name=$1 sanitize=$2
            shift 2
            "$SWIFTC" $sanitize -parse-as-library -O -wmo -module-name "$name" -package-name sockctl -I "$deps" -I "$shims" \
                -emit-module -emit-module-path "$deps/$name.swiftmodule" -c -o "$deps/$name.o" "$@"
        }
        module RealModule "" "$numerics"/RealModule/*.swift
        module ComplexModule "" "$numerics"/ComplexModule/*.swift
        module Numerics "" "$numerics"/Numerics/*.swift
        module Histogram -sanitize=fuzzer,address "$histogram"/*.swift
        module SocketEngine -sanitize=fuzzer,address "${engine[@]}"
        echo "$slice" > "$deps/SocketEngine.slice"
    fi
    local sources
    mapfile -t sources < <({ find Sources/LoadGen/Report -name '*.swift'; echo Sources/LoadGen/LoadGenError.swift; echo Sources/LoadGen/Plan/Threshold.swift; echo Sources/LoadGen/Plan/SettingKey+LoadGen.swift; echo Sources/LoadGen/Run/HTTPStatusCounts.swift; } | sort)
    sources+=(fuzz/FuzzMerge.swift)
    if [ -x "$bin" ] && [ -z "$(find "${sources[@]}" "$deps/SocketEngine.o" -newer "$bin" 2>/dev/null)" ] \
        && [ "$(printf '%s\n' "${sources[@]}" | sha256sum)" = "$(cat "$bin.sources" 2>/dev/null)" ]; then
        return 0
    fi
    echo "==> building fuzz target merge"
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -use-ld=lld -module-name LoadGen -package-name sockctl \
        -I "$deps" -I "$shims" -Xcc -fmodule-map-file=Sources/CZlib/module.modulemap \
        "${sources[@]}" "$deps"/*.o -o "$bin.tmp"
    mv "$bin.tmp" "$bin"
    printf '%s\n' "${sources[@]}" | sha256sum > "$bin.sources"
}
# build_http: the scanner's module (Sources/HTTPScanning: HTTPMessageScanner*, HTTPMessageInfo,
# HTTPScanError) imports nothing but the standard library and Glibc (keep it so), so it compiles
# alone, as the module HTTPScanning, with the harness.
build_http() {
    local bin=$OUT/bin/http sources
    mapfile -t sources < <(find Sources/HTTPScanning -name '*.swift' | sort)
    sources+=(fuzz/FuzzHTTP.swift)
    if [ -x "$bin" ] && [ -z "$(find "${sources[@]}" -newer "$bin" 2>/dev/null)" ] \
        && [ "$(printf '%s\n' "${sources[@]}" | sha256sum)" = "$(cat "$bin.sources" 2>/dev/null)" ]; then
        return 0
    fi
    echo "==> building fuzz target http"
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -use-ld=lld -module-name HTTPScanning -package-name sockctl \
        "${sources[@]}" -o "$bin.tmp"
    mv "$bin.tmp" "$bin"
    printf '%s\n' "${sources[@]}" | sha256sum > "$bin.sources"
}
declare -A FILE=([frames]=fuzz/FuzzFrames.swift [files]=fuzz/FuzzFiles.swift [reassembly]=fuzz/FuzzReassembly.swift [decrypt]=fuzz/FuzzDecrypt.swift [inflate]=fuzz/FuzzInflate.swift [hpack]=fuzz/FuzzHPACK.swift)
for name in "${TARGETS[@]}"; do
    case $name in
        merge) build_merge ;;
        http) build_http ;;
        *) build "$name" "${FILE[$name]}" ;;
    esac
done

# Seeds, rebuilt every run (cheap) so new test captures are picked up.
rm -rf "$OUT/seeds"
mkdir -p "$OUT/seeds"
python3 bench/make-pcap.py "$OUT/seeds/generated.pcap" 400 7
mapfile -t captures < <(find Tests -type f \( -name '*.pcap' -o -name '*.pcapng' \) | sort)
python3 fuzz/seeds.py "$OUT/seeds/frames" "$OUT/seeds/files" "$OUT/seeds/reassembly" \
    "$OUT/seeds/generated.pcap" "${captures[@]}"
# Report files alone, and each with the next as a pair (the two parts split by a NUL byte).
mkdir -p "$OUT/seeds/merge"
mapfile -t reports < <(find Tests/Reports -name '*.json' | sort)
for index in "${!reports[@]}"; do
    first=${reports[$index]} second=${reports[$(( (index + 1) % ${#reports[@]} ))]}
    cp "$first" "$OUT/seeds/merge/$(basename "$first")"
    { cat "$first"; printf '\0'; cat "$second"; } > "$OUT/seeds/merge/pair-$(basename "$first" .json)-$(basename "$second")"
done
# Compressed WebSocket directions (see fuzz/FuzzInflate.swift): messages deflated by Python's
# zlib as permessage-deflate sends them, context kept and reset, whole and in fragments, masked.
mkdir -p "$OUT/seeds/inflate"
python3 - "$OUT/seeds/inflate" <<'PY'
import os, sys, zlib
def frame(first, payload, mask=None):
    n = len(payload)
    head = bytes([first]) + (bytes([n | (0x80 if mask else 0)]) if n < 126 else bytes([126 | (0x80 if mask else 0)]) + n.to_bytes(2, "big"))
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        head += mask
    return head + payload
def messages(texts, reset, mask):
    out, c = b"", zlib.compressobj(9, zlib.DEFLATED, -15)
    for text in texts:
        if reset: c = zlib.compressobj(9, zlib.DEFLATED, -15)
        data = c.compress(text) + c.flush(zlib.Z_SYNC_FLUSH)
        out += frame(0xC1, data[:-4], mask)
    return out
texts = [b"the same words, the same words", b"the same words, the same words", b"", b"x" * 300]
for name, control, reset, mask in [("kept", 0x6C, False, None), ("reset", 0x6D, True, None), ("masked", 0x6E, False, b"\x01\x02\x03\x04")]:
    open(os.path.join(sys.argv[1], name), "wb").write(bytes([control]) + messages(texts, reset, mask))
c = zlib.compressobj(9, zlib.DEFLATED, -15); data = c.compress(b"fragmented message") + c.flush(zlib.Z_SYNC_FLUSH)
open(os.path.join(sys.argv[1], "fragments"), "wb").write(bytes([0x04]) + frame(0x41, data[:5]) + frame(0x89, b"ping") + frame(0x80, data[5:-4]))
PY
# TLS sessions with their key logs.
python3 fuzz/decrypt-seeds.py "$OUT/seeds/decrypt" Tests/Fixtures/TLS/*.pcap
# HTTP streams: the hand-made messages (3 control bytes, then the stream; see fuzz/FuzzHTTP.swift).
mkdir -p "$OUT/seeds/http"
cp fuzz/regressions/http/* "$OUT/seeds/http/"
# HPACK: the hand-made inputs of fuzz/regressions/hpack (RFC 7541 C.3's blocks, split, padded,
# pushed; gRPC headers and messages) are the seeds.
mkdir -p "$OUT/seeds/hpack"
cp fuzz/regressions/hpack/* "$OUT/seeds/hpack/"
echo "==> seeds: $(ls "$OUT/seeds/frames" | wc -l) frames, $(ls "$OUT/seeds/files" | wc -l) files," \
    "$(ls "$OUT/seeds/reassembly" | wc -l) segment scripts" \
    "(from ${#captures[@]} test captures + 1 generated), $(ls "$OUT/seeds/merge" | wc -l) report inputs," \
    "$(ls "$OUT/seeds/http" | wc -l) HTTP streams, $(ls "$OUT/seeds/inflate" | wc -l) compressed WebSocket directions," \
    "$(ls "$OUT/seeds/decrypt" | wc -l) TLS sessions;" \
    "${SECONDS_PER_TARGET} s per target"

# Known crashers (fuzz/regressions/TARGET/*) are replayed first, once each.
failed=0
for name in "${TARGETS[@]}"; do
    [ -d "fuzz/regressions/$name" ] || continue
    for input in fuzz/regressions/"$name"/*; do
        if ! "$OUT/bin/$name" "$input" > "$OUT/regression.log" 2>&1; then
            failed=1
            echo "regression $name: FAILED on $input"
            grep -m 1 -E 'Fatal error|ERROR: AddressSanitizer|deadly signal' "$OUT/regression.log" || true
        fi
    done
done

# fuzz NAME MAX_LEN: runs in the background, log in $OUT/NAME.log.
declare -A PID
fuzz() {
    local name=$1 max_len=$2 dict=()
    [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$OUT/bin/$name" \
        -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=5 -max_len="$max_len" \
        -print_final_stats=1 -artifact_prefix="$OUT/artifacts/$name-" "${dict[@]}" \
        "$OUT/corpus/$name" "$OUT/seeds/$name" > "$OUT/$name.log" 2>&1 &
    PID[$name]=$!
}
declare -A MAXLEN=([frames]=65600 [files]=65536 [reassembly]=4096 [decrypt]=65536 [merge]=16384 [http]=8192 [inflate]=16384 [hpack]=4096)
for name in "${TARGETS[@]}"; do fuzz "$name" "${MAXLEN[$name]}"; done

total=0
for name in "${TARGETS[@]}"; do
    status=0
    wait "${PID[$name]}" || status=$?
    log=$OUT/$name.log
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    corpus=$(ls "$OUT/corpus/$name" | wc -l)
    total=$((total + ${runs:-0}))
    if [ "$status" = 0 ]; then
        echo "fuzz $name: ok, ${runs:-?} inputs in ${SECONDS_PER_TARGET} s, corpus $corpus"
    else
        failed=1
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        echo "fuzz $name: FAILED (exit $status) after ${runs:-?} inputs; log $log"
        grep -m 1 -E '^==[0-9]+==ERROR|Fatal error|deadly signal|ALARM|out-of-memory|LeakSanitizer' "$log" || true
        grep -E '^ +#[0-9]+ ' "$log" | head -n 12 || true
        if [ -n "$artifact" ]; then
            echo "crashing input: $artifact"
            echo "reproduce: $OUT/bin/$name $artifact"
        fi
    fi
done
echo "fuzz: $total inputs in all ($([ $failed = 0 ] && echo clean || echo FAILED))"
exit $failed
