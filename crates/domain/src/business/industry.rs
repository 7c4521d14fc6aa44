//! The industry table: canonical slugs and the words that name them, in one place.
//!
//! With `auto_categorize`, a given industry is mapped to its slug by the words it contains
//! ("Plumbing Services" -> `plumbing`, "Heating & Air" -> `hvac`); a missing one is inferred from the
//! business's name and website the same way. The first industry of `INDUSTRIES` with a match wins,
//! so the specific trades come before the catch-all `general_contractor` ("Apex Roofing &
//! Construction" is roofing).

use crate::parse::url_domain;

/// One canonical industry: its slug, the words or phrases that name it in free text, and the
/// fragments that name it inside a website's host, where words run together (`austinplumbingpros`).
pub struct Industry {
    pub slug: &'static str,
    words: &'static [&'static str],
    host_fragments: &'static [&'static str],
}

/// In order of precedence.
pub const INDUSTRIES: [Industry; 11] = [
    Industry {
        slug: "solar",
        words: &["solar", "photovoltaic", "solar panels"],
        host_fragments: &["solar"],
    },
    Industry {
        slug: "pools",
        words: &["pool", "pools", "swimming pool"],
        host_fragments: &["pools", "poolservice", "poolcare", "poolandspa", "poolspa"],
    },
    Industry {
        slug: "pest_control",
        words: &[
            "pest",
            "pests",
            "pest control",
            "exterminator",
            "exterminators",
            "exterminating",
            "termite",
            "termites",
        ],
        host_fragments: &["pestcontrol", "pest", "extermina", "termite"],
    },
    Industry {
        slug: "roofing",
        words: &["roofing", "roofer", "roofers", "roof", "roofs"],
        host_fragments: &["roofing", "roofer"],
    },
    Industry {
        slug: "plumbing",
        words: &[
            "plumbing",
            "plumber",
            "plumbers",
            "rooter",
            "drain",
            "drains",
            "sewer",
            "water heater",
            "water heaters",
        ],
        host_fragments: &["plumb", "rooter"],
    },
    Industry {
        slug: "hvac",
        words: &[
            "hvac",
            "heating",
            "cooling",
            "air conditioning",
            "heating and air",
            "furnace",
            "furnaces",
            "heat pump",
            "heat pumps",
            "refrigeration",
        ],
        host_fragments: &[
            "hvac",
            "heatingandair",
            "heatingair",
            "heatingandcooling",
            "heatingcooling",
            "airconditioning",
        ],
    },
    Industry {
        slug: "electrical",
        words: &[
            "electrical",
            "electric",
            "electrician",
            "electricians",
            "wiring",
        ],
        host_fragments: &["electric"],
    },
    Industry {
        slug: "landscaping",
        words: &[
            "landscaping",
            "landscape",
            "landscapes",
            "landscaper",
            "landscapers",
            "lawn",
            "lawns",
            "lawn care",
            "gardening",
            "irrigation",
            "tree service",
            "tree care",
            "mowing",
        ],
        host_fragments: &["landscap", "lawncare", "lawn"],
    },
    Industry {
        slug: "painting",
        words: &["painting", "painter", "painters", "paint"],
        host_fragments: &["painting", "painters"],
    },
    Industry {
        slug: "real_estate",
        words: &[
            "real estate",
            "realty",
            "realtor",
            "realtors",
            "brokerage",
            "property management",
            "homes for sale",
        ],
        host_fragments: &["realty", "realestate", "realtor"],
    },
    Industry {
        slug: "general_contractor",
        words: &[
            "general contractor",
            "general contractors",
            "general contracting",
            "contractor",
            "contractors",
            "contracting",
            "construction",
            "builder",
            "builders",
            "remodeling",
            "remodelling",
            "renovation",
            "renovations",
            "home improvement",
        ],
        host_fragments: &[
            "construction",
            "contracting",
            "contractor",
            "builders",
            "remodel",
        ],
    },
];

/// The canonical slugs, for documentation and filters.
pub fn industry_slugs() -> impl Iterator<Item = &'static str> {
    INDUSTRIES.iter().map(|i| i.slug)
}

/// Lower-case words of free text; `&` reads as "and", `_` and every other non-alphanumeric
/// character separate words ("Heating&Air" -> heating and air, "real_estate" -> real estate).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<String>| {
        if !current.is_empty() {
            out.push(std::mem::take(current));
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        } else if c == '\'' || c == '\u{2019}' {
            // "Joe's" is one word.
        } else {
            flush(&mut current, &mut out);
            if c == '&' || c == '+' {
                out.push("and".to_owned());
            }
        }
    }
    flush(&mut current, &mut out);
    out
}

/// Whether `phrase` (one or more words) occurs in `text` as whole consecutive words.
fn contains_phrase(text: &[String], phrase: &str) -> bool {
    let wanted: Vec<&str> = phrase.split(' ').collect();
    text.windows(wanted.len())
        .any(|w| w.iter().zip(&wanted).all(|(a, b)| a == b))
}

fn by_words(text: &str) -> Option<&'static str> {
    let text = words(text);
    if text.is_empty() {
        return None;
    }
    INDUSTRIES
        .iter()
        .find(|i| i.words.iter().any(|p| contains_phrase(&text, p)))
        .map(|i| i.slug)
}

fn by_host(website: &str) -> Option<&'static str> {
    let host = url_domain(website)?;
    // The top-level domain says nothing about the trade (".pro", ".roofing" aside).
    let name = host
        .rsplit_once('.')
        .map_or(host.as_str(), |(name, _)| name);
    let joined: String = name.chars().filter(|c| c.is_alphanumeric()).collect();
    by_words(name).or_else(|| {
        INDUSTRIES
            .iter()
            .find(|i| i.host_fragments.iter().any(|f| joined.contains(f)))
            .map(|i| i.slug)
    })
}

/// The slug a given industry names, if any: an exact slug, or the first industry whose words occur.
pub fn canonical_industry(given: &str) -> Option<&'static str> {
    let trimmed = given.trim();
    INDUSTRIES
        .iter()
        .find(|i| i.slug.eq_ignore_ascii_case(trimmed))
        .map(|i| i.slug)
        .or_else(|| by_words(trimmed))
}

/// The industry a business's name or website suggests (the name first), if any.
pub fn infer_industry(name: &str, website: Option<&str>) -> Option<&'static str> {
    by_words(name).or_else(|| website.and_then(by_host))
}

/// What `auto_categorize` stores: the given industry mapped to its slug (kept as given when it maps
/// to none), or one inferred from the name and website when none is given.
pub fn categorize(given: Option<&str>, name: &str, website: Option<&str>) -> Option<String> {
    match given {
        Some(g) => Some(canonical_industry(g).map_or_else(|| g.to_owned(), str::to_owned)),
        None => infer_industry(name, website).map(str::to_owned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_industries_map_to_slugs() {
        for (given, slug) in [
            ("Plumbing Services", "plumbing"),
            ("Heating & Air", "hvac"),
            ("HVAC", "hvac"),
            ("Heating and Cooling", "hvac"),
            ("Air Conditioning Contractor", "hvac"),
            ("Roofing Contractor", "roofing"),
            ("Electrician", "electrical"),
            ("Real Estate Agency", "real_estate"),
            ("real_estate", "real_estate"),
            ("Solar Energy Equipment Supplier", "solar"),
            ("Landscaper", "landscaping"),
            ("Lawn Care Service", "landscaping"),
            ("Pest Control Service", "pest_control"),
            ("Swimming Pool Contractor", "pools"),
            ("Painter", "painting"),
            ("General Contractor", "general_contractor"),
            ("Construction Company", "general_contractor"),
        ] {
            assert_eq!(canonical_industry(given), Some(slug), "{given}");
        }
        assert_eq!(canonical_industry("Bakery"), None);
        assert_eq!(canonical_industry(""), None);
    }

    #[test]
    fn missing_industries_are_inferred_from_name_then_website() {
        assert_eq!(infer_industry("Joe's Plumbing LLC", None), Some("plumbing"));
        assert_eq!(
            infer_industry("Apex Roofing & Construction", None),
            Some("roofing")
        );
        assert_eq!(
            infer_industry("Acme Services", Some("https://www.austinplumbingpros.com/")),
            Some("plumbing")
        );
        assert_eq!(
            infer_industry("Acme", Some("cool-air-hvac.com")),
            Some("hvac")
        );
        assert_eq!(infer_industry("Acme Holdings", Some("acme.com")), None);
        assert_eq!(infer_industry("Sunny Day Bakery", Some("not a url")), None);
    }

    #[test]
    fn categorize_keeps_an_unknown_given_industry() {
        assert_eq!(
            categorize(Some("Bakery"), "Joe's Plumbing", None).as_deref(),
            Some("Bakery")
        );
        assert_eq!(
            categorize(None, "Joe's Plumbing", None).as_deref(),
            Some("plumbing")
        );
        assert_eq!(categorize(None, "Acme", None), None);
    }

    #[test]
    fn words_split_like_a_person_reads() {
        assert_eq!(words("Heating&Air"), ["heating", "and", "air"]);
        assert_eq!(words("Joe's  Pool-Care"), ["joes", "pool", "care"]);
    }
}
