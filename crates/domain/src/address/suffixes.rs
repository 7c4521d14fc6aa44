//! USPS Publication 28, Appendix C1: street suffixes and their standard abbreviations.
//!
//! Every primary name, every commonly used variant and every standard abbreviation maps to the
//! standard abbreviation. Kept sorted by the written form so a lookup is a binary search; a unit
//! test checks the order, so an entry added out of place fails the build's tests, not a lookup.
//! Where Pub 28 lists one variant under two suffixes (MDW under MEADOW and MEADOWS) the
//! singular wins: MDW is MEADOW's own standard abbreviation.

/// (written form, C1 standard abbreviation), sorted by written form.
#[rustfmt::skip]
pub(super) static SUFFIXES: &[(&str, &str)] = &[
    ("ALLEE", "ALY"), ("ALLEY", "ALY"), ("ALLY", "ALY"), ("ALY", "ALY"), ("ANEX", "ANX"),
    ("ANNEX", "ANX"), ("ANNX", "ANX"), ("ANX", "ANX"), ("ARC", "ARC"), ("ARCADE", "ARC"),
    ("AV", "AVE"), ("AVE", "AVE"), ("AVEN", "AVE"), ("AVENU", "AVE"), ("AVENUE", "AVE"),
    ("AVN", "AVE"), ("AVNUE", "AVE"), ("BAYOO", "BYU"), ("BAYOU", "BYU"), ("BCH", "BCH"),
    ("BEACH", "BCH"), ("BEND", "BND"), ("BG", "BG"), ("BGS", "BGS"), ("BLF", "BLF"),
    ("BLFS", "BLFS"), ("BLUF", "BLF"), ("BLUFF", "BLF"), ("BLUFFS", "BLFS"), ("BLVD", "BLVD"),
    ("BND", "BND"), ("BOT", "BTM"), ("BOTTM", "BTM"), ("BOTTOM", "BTM"), ("BOUL", "BLVD"),
    ("BOULEVARD", "BLVD"), ("BOULV", "BLVD"), ("BR", "BR"), ("BRANCH", "BR"), ("BRDGE", "BRG"),
    ("BRG", "BRG"), ("BRIDGE", "BRG"), ("BRK", "BRK"), ("BRKS", "BRKS"), ("BRNCH", "BR"),
    ("BROOK", "BRK"), ("BROOKS", "BRKS"), ("BTM", "BTM"), ("BURG", "BG"), ("BURGS", "BGS"),
    ("BYP", "BYP"), ("BYPA", "BYP"), ("BYPAS", "BYP"), ("BYPASS", "BYP"), ("BYPS", "BYP"),
    ("BYU", "BYU"), ("CAMP", "CP"), ("CANYN", "CYN"), ("CANYON", "CYN"), ("CAPE", "CPE"),
    ("CAUSEWAY", "CSWY"), ("CAUSWA", "CSWY"), ("CEN", "CTR"), ("CENT", "CTR"), ("CENTER", "CTR"),
    ("CENTERS", "CTRS"), ("CENTR", "CTR"), ("CENTRE", "CTR"), ("CIR", "CIR"), ("CIRC", "CIR"),
    ("CIRCL", "CIR"), ("CIRCLE", "CIR"), ("CIRCLES", "CIRS"), ("CIRS", "CIRS"), ("CLB", "CLB"),
    ("CLF", "CLF"), ("CLFS", "CLFS"), ("CLIFF", "CLF"), ("CLIFFS", "CLFS"), ("CLUB", "CLB"),
    ("CMN", "CMN"), ("CMNS", "CMNS"), ("CMP", "CP"), ("CNTER", "CTR"), ("CNTR", "CTR"),
    ("CNYN", "CYN"), ("COMMON", "CMN"), ("COMMONS", "CMNS"), ("COR", "COR"), ("CORNER", "COR"),
    ("CORNERS", "CORS"), ("CORS", "CORS"), ("COURSE", "CRSE"), ("COURT", "CT"), ("COURTS", "CTS"),
    ("COVE", "CV"), ("COVES", "CVS"), ("CP", "CP"), ("CPE", "CPE"), ("CRCL", "CIR"),
    ("CRCLE", "CIR"), ("CREEK", "CRK"), ("CRES", "CRES"), ("CRESCENT", "CRES"), ("CREST", "CRST"),
    ("CRK", "CRK"), ("CROSSING", "XING"), ("CROSSROAD", "XRD"), ("CROSSROADS", "XRDS"), ("CRSE", "CRSE"),
    ("CRSENT", "CRES"), ("CRSNT", "CRES"), ("CRSSNG", "XING"), ("CRST", "CRST"), ("CSWY", "CSWY"),
    ("CT", "CT"), ("CTR", "CTR"), ("CTRS", "CTRS"), ("CTS", "CTS"), ("CURV", "CURV"),
    ("CURVE", "CURV"), ("CV", "CV"), ("CVS", "CVS"), ("CYN", "CYN"), ("DALE", "DL"),
    ("DAM", "DM"), ("DIV", "DV"), ("DIVIDE", "DV"), ("DL", "DL"), ("DM", "DM"),
    ("DR", "DR"), ("DRIV", "DR"), ("DRIVE", "DR"), ("DRIVES", "DRS"), ("DRS", "DRS"),
    ("DRV", "DR"), ("DV", "DV"), ("DVD", "DV"), ("EST", "EST"), ("ESTATE", "EST"),
    ("ESTATES", "ESTS"), ("ESTS", "ESTS"), ("EXP", "EXPY"), ("EXPR", "EXPY"), ("EXPRESS", "EXPY"),
    ("EXPRESSWAY", "EXPY"), ("EXPW", "EXPY"), ("EXPY", "EXPY"), ("EXT", "EXT"), ("EXTENSION", "EXT"),
    ("EXTENSIONS", "EXTS"), ("EXTN", "EXT"), ("EXTNSN", "EXT"), ("EXTS", "EXTS"), ("FALL", "FALL"),
    ("FALLS", "FLS"), ("FERRY", "FRY"), ("FIELD", "FLD"), ("FIELDS", "FLDS"), ("FLAT", "FLT"),
    ("FLATS", "FLTS"), ("FLD", "FLD"), ("FLDS", "FLDS"), ("FLS", "FLS"), ("FLT", "FLT"),
    ("FLTS", "FLTS"), ("FORD", "FRD"), ("FORDS", "FRDS"), ("FOREST", "FRST"), ("FORESTS", "FRST"),
    ("FORG", "FRG"), ("FORGE", "FRG"), ("FORGES", "FRGS"), ("FORK", "FRK"), ("FORKS", "FRKS"),
    ("FORT", "FT"), ("FRD", "FRD"), ("FRDS", "FRDS"), ("FREEWAY", "FWY"), ("FREEWY", "FWY"),
    ("FRG", "FRG"), ("FRGS", "FRGS"), ("FRK", "FRK"), ("FRKS", "FRKS"), ("FRRY", "FRY"),
    ("FRST", "FRST"), ("FRT", "FT"), ("FRWAY", "FWY"), ("FRWY", "FWY"), ("FRY", "FRY"),
    ("FT", "FT"), ("FWY", "FWY"), ("GARDEN", "GDN"), ("GARDENS", "GDNS"), ("GARDN", "GDN"),
    ("GATEWAY", "GTWY"), ("GATEWY", "GTWY"), ("GATWAY", "GTWY"), ("GDN", "GDN"), ("GDNS", "GDNS"),
    ("GLEN", "GLN"), ("GLENS", "GLNS"), ("GLN", "GLN"), ("GLNS", "GLNS"), ("GRDEN", "GDN"),
    ("GRDN", "GDN"), ("GRDNS", "GDNS"), ("GREEN", "GRN"), ("GREENS", "GRNS"), ("GRN", "GRN"),
    ("GRNS", "GRNS"), ("GROV", "GRV"), ("GROVE", "GRV"), ("GROVES", "GRVS"), ("GRV", "GRV"),
    ("GRVS", "GRVS"), ("GTWAY", "GTWY"), ("GTWY", "GTWY"), ("HARB", "HBR"), ("HARBOR", "HBR"),
    ("HARBORS", "HBRS"), ("HARBR", "HBR"), ("HAVEN", "HVN"), ("HBR", "HBR"), ("HBRS", "HBRS"),
    ("HEIGHTS", "HTS"), ("HIGHWAY", "HWY"), ("HIGHWY", "HWY"), ("HILL", "HL"), ("HILLS", "HLS"),
    ("HIWAY", "HWY"), ("HIWY", "HWY"), ("HL", "HL"), ("HLLW", "HOLW"), ("HLS", "HLS"),
    ("HOLLOW", "HOLW"), ("HOLLOWS", "HOLW"), ("HOLW", "HOLW"), ("HOLWS", "HOLW"), ("HRBOR", "HBR"),
    ("HT", "HTS"), ("HTS", "HTS"), ("HVN", "HVN"), ("HWAY", "HWY"), ("HWY", "HWY"),
    ("INLET", "INLT"), ("INLT", "INLT"), ("IS", "IS"), ("ISLAND", "IS"), ("ISLANDS", "ISS"),
    ("ISLE", "ISLE"), ("ISLES", "ISLE"), ("ISLND", "IS"), ("ISLNDS", "ISS"), ("ISS", "ISS"),
    ("JCT", "JCT"), ("JCTION", "JCT"), ("JCTN", "JCT"), ("JCTNS", "JCTS"), ("JCTS", "JCTS"),
    ("JUNCTION", "JCT"), ("JUNCTIONS", "JCTS"), ("JUNCTN", "JCT"), ("JUNCTON", "JCT"), ("KEY", "KY"),
    ("KEYS", "KYS"), ("KNL", "KNL"), ("KNLS", "KNLS"), ("KNOL", "KNL"), ("KNOLL", "KNL"),
    ("KNOLLS", "KNLS"), ("KY", "KY"), ("KYS", "KYS"), ("LAKE", "LK"), ("LAKES", "LKS"),
    ("LAND", "LAND"), ("LANDING", "LNDG"), ("LANE", "LN"), ("LCK", "LCK"), ("LCKS", "LCKS"),
    ("LDG", "LDG"), ("LDGE", "LDG"), ("LF", "LF"), ("LGT", "LGT"), ("LGTS", "LGTS"),
    ("LIGHT", "LGT"), ("LIGHTS", "LGTS"), ("LK", "LK"), ("LKS", "LKS"), ("LN", "LN"),
    ("LNDG", "LNDG"), ("LNDNG", "LNDG"), ("LOAF", "LF"), ("LOCK", "LCK"), ("LOCKS", "LCKS"),
    ("LODG", "LDG"), ("LODGE", "LDG"), ("LOOP", "LOOP"), ("LOOPS", "LOOP"), ("MALL", "MALL"),
    ("MANOR", "MNR"), ("MANORS", "MNRS"), ("MDW", "MDW"), ("MDWS", "MDWS"), ("MEADOW", "MDW"),
    ("MEADOWS", "MDWS"), ("MEDOWS", "MDWS"), ("MEWS", "MEWS"), ("MILL", "ML"), ("MILLS", "MLS"),
    ("MISSION", "MSN"), ("MISSN", "MSN"), ("ML", "ML"), ("MLS", "MLS"), ("MNR", "MNR"),
    ("MNRS", "MNRS"), ("MNT", "MT"), ("MNTAIN", "MTN"), ("MNTN", "MTN"), ("MNTNS", "MTNS"),
    ("MOTORWAY", "MTWY"), ("MOUNT", "MT"), ("MOUNTAIN", "MTN"), ("MOUNTAINS", "MTNS"), ("MOUNTIN", "MTN"),
    ("MSN", "MSN"), ("MSSN", "MSN"), ("MT", "MT"), ("MTIN", "MTN"), ("MTN", "MTN"),
    ("MTNS", "MTNS"), ("MTWY", "MTWY"), ("NCK", "NCK"), ("NECK", "NCK"), ("OPAS", "OPAS"),
    ("ORCH", "ORCH"), ("ORCHARD", "ORCH"), ("ORCHRD", "ORCH"), ("OVAL", "OVAL"), ("OVERPASS", "OPAS"),
    ("OVL", "OVAL"), ("PARK", "PARK"), ("PARKS", "PARK"), ("PARKWAY", "PKWY"), ("PARKWAYS", "PKWY"),
    ("PARKWY", "PKWY"), ("PASS", "PASS"), ("PASSAGE", "PSGE"), ("PATH", "PATH"), ("PATHS", "PATH"),
    ("PIKE", "PIKE"), ("PIKES", "PIKE"), ("PINE", "PNE"), ("PINES", "PNES"), ("PKWAY", "PKWY"),
    ("PKWY", "PKWY"), ("PKWYS", "PKWY"), ("PKY", "PKWY"), ("PL", "PL"), ("PLACE", "PL"),
    ("PLAIN", "PLN"), ("PLAINS", "PLNS"), ("PLAZA", "PLZ"), ("PLN", "PLN"), ("PLNS", "PLNS"),
    ("PLZ", "PLZ"), ("PLZA", "PLZ"), ("PNE", "PNE"), ("PNES", "PNES"), ("POINT", "PT"),
    ("POINTS", "PTS"), ("PORT", "PRT"), ("PORTS", "PRTS"), ("PR", "PR"), ("PRAIRIE", "PR"),
    ("PRK", "PARK"), ("PRR", "PR"), ("PRT", "PRT"), ("PRTS", "PRTS"), ("PSGE", "PSGE"),
    ("PT", "PT"), ("PTS", "PTS"), ("RAD", "RADL"), ("RADIAL", "RADL"), ("RADIEL", "RADL"),
    ("RADL", "RADL"), ("RAMP", "RAMP"), ("RANCH", "RNCH"), ("RANCHES", "RNCH"), ("RAPID", "RPD"),
    ("RAPIDS", "RPDS"), ("RD", "RD"), ("RDG", "RDG"), ("RDGE", "RDG"), ("RDGS", "RDGS"),
    ("RDS", "RDS"), ("REST", "RST"), ("RIDGE", "RDG"), ("RIDGES", "RDGS"), ("RIV", "RIV"),
    ("RIVER", "RIV"), ("RIVR", "RIV"), ("RNCH", "RNCH"), ("RNCHS", "RNCH"), ("ROAD", "RD"),
    ("ROADS", "RDS"), ("ROUTE", "RTE"), ("ROW", "ROW"), ("RPD", "RPD"), ("RPDS", "RPDS"),
    ("RST", "RST"), ("RTE", "RTE"), ("RUE", "RUE"), ("RUN", "RUN"), ("RVR", "RIV"),
    ("SHL", "SHL"), ("SHLS", "SHLS"), ("SHOAL", "SHL"), ("SHOALS", "SHLS"), ("SHOAR", "SHR"),
    ("SHOARS", "SHRS"), ("SHORE", "SHR"), ("SHORES", "SHRS"), ("SHR", "SHR"), ("SHRS", "SHRS"),
    ("SKWY", "SKWY"), ("SKYWAY", "SKWY"), ("SMT", "SMT"), ("SPG", "SPG"), ("SPGS", "SPGS"),
    ("SPNG", "SPG"), ("SPNGS", "SPGS"), ("SPRING", "SPG"), ("SPRINGS", "SPGS"), ("SPRNG", "SPG"),
    ("SPRNGS", "SPGS"), ("SPUR", "SPUR"), ("SPURS", "SPUR"), ("SQ", "SQ"), ("SQR", "SQ"),
    ("SQRE", "SQ"), ("SQRS", "SQS"), ("SQS", "SQS"), ("SQU", "SQ"), ("SQUARE", "SQ"),
    ("SQUARES", "SQS"), ("ST", "ST"), ("STA", "STA"), ("STATION", "STA"), ("STATN", "STA"),
    ("STN", "STA"), ("STR", "ST"), ("STRA", "STRA"), ("STRAV", "STRA"), ("STRAVEN", "STRA"),
    ("STRAVENUE", "STRA"), ("STRAVN", "STRA"), ("STREAM", "STRM"), ("STREET", "ST"), ("STREETS", "STS"),
    ("STREME", "STRM"), ("STRM", "STRM"), ("STRT", "ST"), ("STRVN", "STRA"), ("STRVNUE", "STRA"),
    ("STS", "STS"), ("SUMIT", "SMT"), ("SUMITT", "SMT"), ("SUMMIT", "SMT"), ("TER", "TER"),
    ("TERR", "TER"), ("TERRACE", "TER"), ("THROUGHWAY", "TRWY"), ("TPKE", "TPKE"), ("TRACE", "TRCE"),
    ("TRACES", "TRCE"), ("TRACK", "TRAK"), ("TRACKS", "TRAK"), ("TRAFFICWAY", "TRFY"), ("TRAIL", "TRL"),
    ("TRAILER", "TRLR"), ("TRAILS", "TRL"), ("TRAK", "TRAK"), ("TRCE", "TRCE"), ("TRFY", "TRFY"),
    ("TRK", "TRAK"), ("TRKS", "TRAK"), ("TRL", "TRL"), ("TRLR", "TRLR"), ("TRLRS", "TRLR"),
    ("TRLS", "TRL"), ("TRNPK", "TPKE"), ("TRWY", "TRWY"), ("TUNEL", "TUNL"), ("TUNL", "TUNL"),
    ("TUNLS", "TUNL"), ("TUNNEL", "TUNL"), ("TUNNELS", "TUNL"), ("TUNNL", "TUNL"), ("TURNPIKE", "TPKE"),
    ("TURNPK", "TPKE"), ("UN", "UN"), ("UNDERPASS", "UPAS"), ("UNION", "UN"), ("UNIONS", "UNS"),
    ("UNS", "UNS"), ("UPAS", "UPAS"), ("VALLEY", "VLY"), ("VALLEYS", "VLYS"), ("VALLY", "VLY"),
    ("VDCT", "VIA"), ("VIA", "VIA"), ("VIADCT", "VIA"), ("VIADUCT", "VIA"), ("VIEW", "VW"),
    ("VIEWS", "VWS"), ("VILL", "VLG"), ("VILLAG", "VLG"), ("VILLAGE", "VLG"), ("VILLAGES", "VLGS"),
    ("VILLE", "VL"), ("VILLG", "VLG"), ("VILLIAGE", "VLG"), ("VIS", "VIS"), ("VIST", "VIS"),
    ("VISTA", "VIS"), ("VL", "VL"), ("VLG", "VLG"), ("VLGS", "VLGS"), ("VLLY", "VLY"),
    ("VLY", "VLY"), ("VLYS", "VLYS"), ("VST", "VIS"), ("VSTA", "VIS"), ("VW", "VW"),
    ("VWS", "VWS"), ("WALK", "WALK"), ("WALKS", "WALK"), ("WALL", "WALL"), ("WAY", "WAY"),
    ("WAYS", "WAYS"), ("WELL", "WL"), ("WELLS", "WLS"), ("WL", "WL"), ("WLS", "WLS"),
    ("WY", "WAY"), ("XING", "XING"), ("XRD", "XRD"), ("XRDS", "XRDS"),
];

/// The C1 standard abbreviation of a written suffix ("AVENUE", "AVN", "AVE" -> "AVE").
pub(super) fn standard(word: &str) -> Option<&'static str> {
    SUFFIXES
        .binary_search_by(|(written, _)| (*written).cmp(word))
        .ok()
        .and_then(|i| SUFFIXES.get(i))
        .map(|(_, std)| *std)
}

/// Whether a word is any C1 suffix form.
pub(super) fn is_suffix(word: &str) -> bool {
    standard(word).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for pair in SUFFIXES.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{:?} before {:?}", pair[0], pair[1]);
        }
    }

    #[test]
    fn every_standard_maps_to_itself() {
        for (_, std) in SUFFIXES {
            assert_eq!(standard(std), Some(*std), "{std}");
        }
    }

    #[test]
    fn table_covers_appendix_c1() {
        let mut standards: Vec<&str> = SUFFIXES.iter().map(|(_, s)| *s).collect();
        standards.sort_unstable();
        standards.dedup();
        assert!(standards.len() >= 195, "{} standards", standards.len());
        assert!(SUFFIXES.len() >= 500, "{} entries", SUFFIXES.len());
    }

    #[test]
    fn primary_names_and_variants() {
        for (written, std) in [
            ("AVENUE", "AVE"),
            ("AV", "AVE"),
            ("AVEN", "AVE"),
            ("AVENU", "AVE"),
            ("AVN", "AVE"),
            ("AVNUE", "AVE"),
            ("BOULEVARD", "BLVD"),
            ("BOUL", "BLVD"),
            ("BOULV", "BLVD"),
            ("STREET", "ST"),
            ("STRT", "ST"),
            ("STR", "ST"),
            ("PARKWAY", "PKWY"),
            ("PKY", "PKWY"),
            ("CIRCLE", "CIR"),
            ("CRCLE", "CIR"),
            ("TERRACE", "TER"),
            ("TERR", "TER"),
            ("HIGHWAY", "HWY"),
            ("HIWAY", "HWY"),
            ("CROSSING", "XING"),
            ("LANE", "LN"),
            ("MEADOW", "MDW"),
            ("MEADOWS", "MDWS"),
            ("MDW", "MDW"),
            ("WY", "WAY"),
            ("TURNPIKE", "TPKE"),
            ("STRAVENUE", "STRA"),
            ("VIADUCT", "VIA"),
            ("WELLS", "WLS"),
        ] {
            assert_eq!(standard(written), Some(std), "{written}");
        }
        assert_eq!(standard("MAIN"), None);
        assert_eq!(standard(""), None);
    }
}
