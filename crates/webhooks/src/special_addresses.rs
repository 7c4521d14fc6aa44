//! The addresses no outbound request of ours may reach on a user's say-so: every block of the IANA
//! IPv4 and IPv6 Special-Purpose Address Registries (loopback, private, shared, link-local where
//! cloud metadata lives, documentation, benchmarking, reserved, ...), multicast, and IPv6 outside
//! global unicast. IPv6 forms that carry an IPv4 address (IPv4-mapped and -compatible, SIIT,
//! NAT64, 6to4, Teredo) are judged by the IPv4 address they lead to, so `::ffff:10.0.0.1` or
//! `2002:a00:1::` is as refused as `10.0.0.1`, and `64:ff9b::8.8.8.8` as allowed as `8.8.8.8`.
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{Ipv4Net, Ipv6Net};

const fn v4(a: u8, b: u8, c: u8, d: u8, len: u8) -> Ipv4Net {
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), len)
}

const fn v6(s: [u16; 8], len: u8) -> Ipv6Net {
    Ipv6Net::new_assert(
        Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]),
        len,
    )
}

/// Refused IPv4 blocks and what they are: the IANA registry, plus multicast.
pub const IPV4_REFUSED: &[(Ipv4Net, &str)] = &[
    (v4(0, 0, 0, 0, 8), "this network"),
    (v4(10, 0, 0, 0, 8), "private use"),
    (
        v4(100, 64, 0, 0, 10),
        "shared address space (carrier-grade NAT)",
    ),
    (v4(127, 0, 0, 0, 8), "loopback"),
    (v4(169, 254, 0, 0, 16), "link-local (cloud metadata)"),
    (v4(172, 16, 0, 0, 12), "private use"),
    (v4(192, 0, 0, 0, 24), "IETF protocol assignments"),
    (v4(192, 0, 2, 0, 24), "documentation (TEST-NET-1)"),
    (v4(192, 31, 196, 0, 24), "AS112-v4"),
    (v4(192, 52, 193, 0, 24), "AMT"),
    (v4(192, 88, 99, 0, 24), "6to4 relay anycast (deprecated)"),
    (v4(192, 168, 0, 0, 16), "private use"),
    (v4(192, 175, 48, 0, 24), "direct delegation AS112"),
    (v4(198, 18, 0, 0, 15), "benchmarking"),
    (v4(198, 51, 100, 0, 24), "documentation (TEST-NET-2)"),
    (v4(203, 0, 113, 0, 24), "documentation (TEST-NET-3)"),
    (v4(224, 0, 0, 0, 4), "multicast"),
    (v4(240, 0, 0, 0, 4), "reserved"),
    (v4(255, 255, 255, 255, 32), "limited broadcast"),
];

/// Refused IPv6 blocks: the IANA registry (its sub-blocks of 2001::/23 included, so the table
/// reads as the registry does), multicast, and everything outside global unicast 2000::/3.
pub const IPV6_REFUSED: &[(Ipv6Net, &str)] = &[
    (v6([0, 0, 0, 0, 0, 0, 0, 1], 128), "loopback"),
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 128), "unspecified"),
    (v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), "discard-only"),
    (v6([0x100, 0, 0, 1, 0, 0, 0, 0], 64), "dummy prefix"),
    (
        v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23),
        "IETF protocol assignments",
    ),
    (v6([0x2001, 1, 0, 0, 0, 0, 0, 1], 128), "PCP anycast"),
    (v6([0x2001, 1, 0, 0, 0, 0, 0, 2], 128), "TURN anycast"),
    (v6([0x2001, 1, 0, 0, 0, 0, 0, 3], 128), "DNS-SD SRP anycast"),
    (v6([0x2001, 2, 0, 0, 0, 0, 0, 0], 48), "benchmarking"),
    (v6([0x2001, 3, 0, 0, 0, 0, 0, 0], 32), "AMT"),
    (v6([0x2001, 4, 0x112, 0, 0, 0, 0, 0], 48), "AS112-v6"),
    (
        v6([0x2001, 0x10, 0, 0, 0, 0, 0, 0], 28),
        "ORCHID (deprecated)",
    ),
    (v6([0x2001, 0x20, 0, 0, 0, 0, 0, 0], 28), "ORCHIDv2"),
    (v6([0x2001, 0x30, 0, 0, 0, 0, 0, 0], 28), "drone remote ID"),
    (v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), "documentation"),
    (
        v6([0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], 48),
        "direct delegation AS112",
    ),
    (v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), "documentation"),
    (
        v6([0x5f00, 0, 0, 0, 0, 0, 0, 0], 16),
        "segment routing SIDs",
    ),
    (v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7), "unique local"),
    (
        v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10),
        "site-local (deprecated)",
    ),
    (v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), "link-local"),
    (v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), "multicast"),
];

/// The only IPv6 space a public host can have.
const GLOBAL_UNICAST: Ipv6Net = v6([0x2000, 0, 0, 0, 0, 0, 0, 0], 3);

/// Why `ip` may not be reached (the block it is in), or None when it is a public address.
pub fn refusal(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(ip) => refusal_v4(ip),
        IpAddr::V6(ip) => refusal_v6(ip),
    }
}

fn refusal_v4(ip: Ipv4Addr) -> Option<&'static str> {
    IPV4_REFUSED
        .iter()
        .find(|(net, _)| net.contains(&ip))
        .map(|(_, what)| *what)
}

fn refusal_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(carried) = embedded_ipv4(ip) {
        // Every address it may lead to must be public: a refused one names the block.
        return carried.into_iter().find_map(refusal_v4);
    }
    IPV6_REFUSED
        .iter()
        .find(|(net, _)| net.contains(&ip))
        .map(|(_, what)| *what)
        .or((!GLOBAL_UNICAST.contains(&ip)).then_some("not global unicast"))
}

/// The IPv4 addresses an IPv6 address of a translation or tunnelling form leads to (None for
/// any other address).
pub fn embedded_ipv4(ip: Ipv6Addr) -> Option<Vec<Ipv4Addr>> {
    let o = ip.octets();
    let s = ip.segments();
    let last = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    let within = |net: Ipv6Net| net.contains(&ip);
    // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT), ::a.b.c.d (compatible; ::1 and :: too,
    // which decode to 0.0.0.1 and 0.0.0.0, both refused), 64:ff9b::a.b.c.d (NAT64).
    if within(v6([0, 0, 0, 0, 0, 0xffff, 0, 0], 96))
        || within(v6([0, 0, 0, 0, 0xffff, 0, 0, 0], 96))
        || within(v6([0, 0, 0, 0, 0, 0, 0, 0], 96))
        || within(v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96))
    {
        return Some(vec![last]);
    }
    // 64:ff9b:1::/48, local-use NAT64 (RFC 8215): the operator's translator may use any RFC 6052
    // prefix length from /48 on, so every place the address may sit is read (bits 64..72 are
    // the reserved `u` octet).
    if within(v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48)) {
        return Some(vec![
            last,
            Ipv4Addr::new(o[6], o[7], o[9], o[10]),
            Ipv4Addr::new(o[7], o[9], o[10], o[11]),
            Ipv4Addr::new(o[9], o[10], o[11], o[12]),
        ]);
    }
    // 2002:AABB:CCDD::/48, 6to4: the site's IPv4 address follows the prefix.
    if within(v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16)) {
        return Some(vec![Ipv4Addr::new(o[2], o[3], o[4], o[5])]);
    }
    // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, Teredo: the server, and the client's address
    // stored inverted.
    if within(v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 32)) {
        let client = !((u32::from(s[6]) << 16) | u32::from(s[7]));
        return Some(vec![
            Ipv4Addr::new(o[4], o[5], o[6], o[7]),
            Ipv4Addr::from(client),
        ]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(ip: &str) -> Option<&'static str> {
        refusal(ip.parse().unwrap())
    }

    #[test]
    fn every_special_purpose_block_is_refused() {
        // One address inside each block of the tables, and the block's name it gets.
        for (ip, what) in [
            ("0.0.0.0", "this network"),
            ("0.1.2.3", "this network"),
            ("10.1.2.3", "private use"),
            ("100.64.0.1", "shared address space (carrier-grade NAT)"),
            (
                "100.127.255.254",
                "shared address space (carrier-grade NAT)",
            ),
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("169.254.169.254", "link-local (cloud metadata)"),
            ("172.16.0.1", "private use"),
            ("172.31.255.1", "private use"),
            ("192.0.0.1", "IETF protocol assignments"),
            ("192.0.0.170", "IETF protocol assignments"),
            ("192.0.2.1", "documentation (TEST-NET-1)"),
            ("192.31.196.1", "AS112-v4"),
            ("192.52.193.1", "AMT"),
            ("192.88.99.1", "6to4 relay anycast (deprecated)"),
            ("192.168.1.1", "private use"),
            ("192.175.48.1", "direct delegation AS112"),
            ("198.18.0.1", "benchmarking"),
            ("198.19.255.1", "benchmarking"),
            ("198.51.100.1", "documentation (TEST-NET-2)"),
            ("203.0.113.1", "documentation (TEST-NET-3)"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.250", "multicast"),
            ("240.0.0.1", "reserved"),
            ("255.255.255.254", "reserved"),
            ("255.255.255.255", "reserved"),
            ("::1", "this network"),
            ("::", "this network"),
            ("100::1", "discard-only"),
            ("100:0:0:1::1", "dummy prefix"),
            ("2001:1::1", "IETF protocol assignments"),
            ("2001:2::1", "IETF protocol assignments"),
            ("2001:3::1", "IETF protocol assignments"),
            ("2001:4:112::1", "IETF protocol assignments"),
            ("2001:10::1", "IETF protocol assignments"),
            ("2001:20::1", "IETF protocol assignments"),
            ("2001:30::1", "IETF protocol assignments"),
            ("2001:1ff::1", "IETF protocol assignments"),
            ("2001:db8::1", "documentation"),
            ("2620:4f:8000::1", "direct delegation AS112"),
            ("3fff::1", "documentation"),
            ("5f00::1", "segment routing SIDs"),
            ("fc00::1", "unique local"),
            ("fd00:ec2::254", "unique local"),
            ("fec0::1", "site-local (deprecated)"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("4000::1", "not global unicast"),
            ("1::1", "not global unicast"),
        ] {
            assert_eq!(refused(ip), Some(what), "{ip}");
        }
    }

    #[test]
    fn embedded_ipv4_is_judged_by_what_it_carries() {
        for (ip, what) in [
            // IPv4-mapped, SIIT, IPv4-compatible.
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:10.0.0.1", "private use"),
            ("::ffff:0:169.254.169.254", "link-local (cloud metadata)"),
            ("::192.168.0.1", "private use"),
            // NAT64, well-known and local-use (its /96 and /48 readings).
            ("64:ff9b::10.0.0.1", "private use"),
            ("64:ff9b::169.254.169.254", "link-local (cloud metadata)"),
            ("64:ff9b:1::10.0.0.1", "private use"),
            ("64:ff9b:1:a00:1:808:808:808", "private use"),
            // 6to4: 2002:0a00:0001:: is 10.0.0.1.
            ("2002:a00:1::1", "private use"),
            ("2002:7f00:1::", "loopback"),
            // Teredo: client 10.0.0.1 stored inverted (f5ff:fffe), or a private server.
            ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "private use"),
            ("2001:0:a00:1:8000:63bf:f7f7:f7f7", "private use"),
        ] {
            assert_eq!(refused(ip), Some(what), "{ip}");
        }
        for ip in [
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "64:ff9b:1:808:8:800:808:808",
            "2002:808:808::1",
            // Server 65.54.227.120, client 8.8.8.8 (inverted: f7f7:f7f7).
            "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
        ] {
            assert_eq!(refused(ip), None, "{ip}");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "1.1.1.1",
            "100.63.255.255",
            "100.128.0.0",
            "172.32.0.1",
            "192.0.3.1",
            "198.20.0.1",
            "223.255.255.255",
            "2606:4700::1111",
            "2a00:1450:4001::1",
            "2001:200::1",
        ] {
            assert_eq!(refused(ip), None, "{ip}");
        }
    }
}
