//! Businesses: the fields an import carries, the element rules, and the stored record.
use chrono::{DateTime, Utc};

use crate::business::duplicate::{name_key, DuplicateKeys};
use crate::business::industry::categorize;
use crate::parse::{clean_text, normalize_phone, url_domain, StateCode};
use crate::word_enum::word_enum;

/// Longest accepted string field of a business, in characters.
pub const MAX_FIELD_LEN: usize = 255;

word_enum! {
    /// Who a business is to us; stored and sent in snake case (`lead_buyer`), read case-insensitively.
    pub enum RelationshipType {
        LeadBuyer,
        LeadSource,
        MarketingPartner,
        Prospect,
    }
}

word_enum! {
    /// Where we stand with a business; every import starts as `Prospect`. Read case-insensitively.
    pub enum BusinessStatus {
        Prospect,
        Active,
        Inactive,
    }
}

/// One business as imported (after JSON or CSV typing): every field optional until the element
/// rules ran.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BusinessFields {
    pub name: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
    pub industry: Option<String>,
    pub rating: Option<f64>,
    pub review_count: Option<i64>,
}

/// The string fields, in the order of the interface spec (CSV columns use the same names).
pub const STRING_FIELDS: [&str; 8] = [
    "name", "phone", "website", "address", "city", "state", "zip_code", "industry",
];

impl BusinessFields {
    pub fn string_field_mut(&mut self, name: &str) -> Option<&mut Option<String>> {
        Some(match name {
            "name" => &mut self.name,
            "phone" => &mut self.phone,
            "website" => &mut self.website,
            "address" => &mut self.address,
            "city" => &mut self.city,
            "state" => &mut self.state,
            "zip_code" => &mut self.zip_code,
            "industry" => &mut self.industry,
            _ => return None,
        })
    }
}

/// The element rules: every reason this element cannot be imported, for a person, or none.
/// A bad element is reported by index; its neighbours are imported all the same.
pub fn element_problems(b: &BusinessFields) -> Vec<String> {
    let mut problems = Vec::new();
    if b.name.as_deref().and_then(clean_text).is_none() {
        problems.push("name: Field required".to_owned());
    }
    if let Some(state) = b.state.as_deref().and_then(clean_text) {
        if StateCode::parse(&state).is_none() {
            problems.push(format!(
                "state: {state:?} is not a US state, DC or territory code"
            ));
        }
    }
    if let Some(phone) = b.phone.as_deref().and_then(clean_text) {
        if normalize_phone(&phone).is_none() {
            problems.push(format!("phone: {}", invalid_phone_message(&phone)));
        }
    }
    if let Some(r) = b.rating {
        if !(0.0..=5.0).contains(&r) {
            problems.push(format!("rating: {r} is outside 0..=5"));
        }
    }
    if let Some(n) = b.review_count {
        if n < 0 {
            problems.push(format!("review_count: {n} is negative"));
        }
    }
    problems
}

/// Why a business phone is refused: the lead's rule (libphonenumber's metadata, a number without
/// `+` read as US), so a directory of businesses holds only numbers a dialer can call.
pub fn invalid_phone_message(phone: &str) -> String {
    format!("{phone:?} is not a valid phone number (a US number with its area code, or + and a country code)")
}

/// A business ready to store: cleaned, phone normalised, industry categorised, duplicate keys built.
#[derive(Debug, Clone, PartialEq)]
pub struct NewBusiness {
    pub name: String,
    pub name_key: String,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub website_domain: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
    pub industry: Option<String>,
    pub rating: Option<f64>,
    pub review_count: Option<i64>,
}

impl NewBusiness {
    /// Normalises an element that passed `element_problems`; None when it did not.
    /// Phones become E.164 as for leads (the element rules refused an invalid one); `state` is
    /// upper-cased.
    pub fn from_fields(b: &BusinessFields, auto_categorize: bool) -> Option<NewBusiness> {
        if !element_problems(b).is_empty() {
            return None;
        }
        let text = |v: &Option<String>| v.as_deref().and_then(clean_text);
        let name = text(&b.name)?;
        let website = text(&b.website);
        let given_industry = text(&b.industry);
        let industry = if auto_categorize {
            categorize(given_industry.as_deref(), &name, website.as_deref())
        } else {
            given_industry
        };
        Some(NewBusiness {
            name_key: name_key(&name),
            phone: text(&b.phone).and_then(|p| normalize_phone(&p)),
            website_domain: website.as_deref().and_then(url_domain),
            website,
            address: text(&b.address),
            city: text(&b.city),
            state: text(&b.state)
                .and_then(|s| StateCode::parse(&s))
                .map(|s| s.as_str().to_owned()),
            zip_code: text(&b.zip_code),
            industry,
            rating: b.rating,
            review_count: b.review_count,
            name,
        })
    }

    pub fn duplicate_keys(&self) -> DuplicateKeys {
        DuplicateKeys::new(
            &self.name_key,
            self.city.as_deref(),
            self.state.as_deref(),
            self.phone.as_deref(),
            self.website.as_deref(),
        )
    }
}

/// A stored business.
#[derive(Debug, Clone, PartialEq)]
pub struct Business {
    pub id: i64,
    pub team_id: Option<i64>,
    pub name: String,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
    pub industry: Option<String>,
    pub rating: Option<f64>,
    pub review_count: Option<i64>,
    pub relationship_type: String,
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_rules() {
        let ok = BusinessFields {
            name: Some("Acme".into()),
            state: Some("tx".into()),
            rating: Some(5.0),
            review_count: Some(0),
            ..BusinessFields::default()
        };
        assert!(element_problems(&ok).is_empty());
        let bad = BusinessFields {
            name: Some("   ".into()),
            state: Some("XX".into()),
            rating: Some(5.1),
            review_count: Some(-1),
            phone: Some("555-1234".into()),
            ..BusinessFields::default()
        };
        let problems = element_problems(&bad);
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert!(problems[0].starts_with("name"));
        assert!(element_problems(&BusinessFields {
            name: Some("x".into()),
            rating: Some(-0.5),
            ..BusinessFields::default()
        })[0]
            .starts_with("rating"));
    }

    #[test]
    fn normalisation() {
        let b = NewBusiness::from_fields(
            &BusinessFields {
                name: Some("  Joe's   Plumbing LLC ".into()),
                phone: Some("(512) 555-0100".into()),
                website: Some("https://WWW.JoesPlumbing.com/".into()),
                state: Some("tx".into()),
                industry: Some("Plumbing Services".into()),
                ..BusinessFields::default()
            },
            true,
        )
        .unwrap();
        assert_eq!(b.name, "Joe's Plumbing LLC");
        assert_eq!(b.name_key, "joes plumbing");
        assert_eq!(b.phone.as_deref(), Some("+15125550100"));
        assert_eq!(b.website_domain.as_deref(), Some("joesplumbing.com"));
        assert_eq!(b.state.as_deref(), Some("TX"));
        assert_eq!(b.industry.as_deref(), Some("plumbing"));
        let raw = NewBusiness::from_fields(
            &BusinessFields {
                name: Some("Joe's Plumbing".into()),
                phone: Some("+44 20 7946 0958".into()),
                industry: Some("Plumbing Services".into()),
                ..BusinessFields::default()
            },
            false,
        )
        .unwrap();
        assert_eq!(raw.phone.as_deref(), Some("+442079460958"));
        assert_eq!(raw.industry.as_deref(), Some("Plumbing Services"));
    }

    #[test]
    fn a_phone_follows_the_leads_rule() {
        for bad in [
            "call us",
            "000-000-0000",
            "555-1234",
            "555-123-4567",
            "1-800-FLOWERS",
        ] {
            let fields = BusinessFields {
                name: Some("Acme".into()),
                phone: Some(bad.into()),
                ..BusinessFields::default()
            };
            let problems = element_problems(&fields);
            assert_eq!(problems.len(), 1, "{bad}: {problems:?}");
            assert!(
                problems[0].starts_with(&format!("phone: {bad:?} is not a valid phone number")),
                "{problems:?}"
            );
            assert_eq!(NewBusiness::from_fields(&fields, false), None, "{bad}");
        }
        // Blank is no phone, not a bad one.
        assert!(element_problems(&BusinessFields {
            name: Some("Acme".into()),
            phone: Some("  ".into()),
            ..BusinessFields::default()
        })
        .is_empty());
    }
}
