//! What people filter and sort the lead list by (docs/search.md): the list's order, the slug
//! form of a lead's `source`, and how a `q` is read.
use crate::parse::clean_text;

/// A column the lead list can be sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortField {
    CreatedAt,
    UpdatedAt,
    /// Case-folded, ties by creation.
    City,
    /// `YYYY-MM-DD`, ties by creation.
    PermitDate,
    /// The follow-up day, ties by creation.
    FollowUpOn,
    /// The newest contact logged on the lead (`last_contact_at`), ties by creation: ascending,
    /// the leads nobody has called come first, then the longest untried; a salesperson's call
    /// order.
    LastContactAt,
    /// The distance from the list's `near` place (`LeadFilter::near`), ties by creation: the
    /// nearest first ascending. Only with `near`.
    Distance,
}

/// The lead list's order: a field, ascending or descending; ties (and the field's equal
/// values) by creation time and id in the same direction. A lead without the value sorts as
/// the smallest (first ascending, last descending), alike on both backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeadSort {
    pub field: SortField,
    pub descending: bool,
}

impl Default for LeadSort {
    /// Newest first.
    fn default() -> Self {
        LeadSort {
            field: SortField::CreatedAt,
            descending: true,
        }
    }
}

impl LeadSort {
    /// The words a `sort` parameter takes, each also with a leading `-` for descending.
    pub const FIELDS: [&'static str; 7] = [
        "created_at",
        "updated_at",
        "city",
        "permit_date",
        "follow_up_on",
        "last_contact_at",
        "distance",
    ];

    /// `created_at`, `-updated_at`, ...; None for any other word.
    pub fn parse(given: &str) -> Option<LeadSort> {
        let given = given.trim();
        let (descending, name) = match given.strip_prefix('-') {
            Some(name) => (true, name),
            None => (false, given),
        };
        let field = match name {
            "created_at" => SortField::CreatedAt,
            "updated_at" => SortField::UpdatedAt,
            "city" => SortField::City,
            "permit_date" => SortField::PermitDate,
            "follow_up_on" => SortField::FollowUpOn,
            "last_contact_at" => SortField::LastContactAt,
            "distance" => SortField::Distance,
            _ => return None,
        };
        Some(LeadSort { field, descending })
    }
}

/// A lead's `source` as stored and filtered: lower case, each run of other characters than
/// letters and digits one `_`, none at the ends (`Permit Scrape` -> `permit_scrape`, like the
/// seed's examples). None when nothing is left.
pub fn source_slug(given: &str) -> Option<String> {
    let mut out = String::with_capacity(given.len());
    let mut gap = false;
    for c in given.chars() {
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.extend(c.to_lowercase());
        } else {
            gap = true;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A `q` as the search reads it: the text (trimmed, inner space collapsed) and, when it looks
/// like a phone number written any way (`(512) 555-0100`, `+1 512.555.0100`), its digits, which
/// are looked for in the digits of the lead's phones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchText {
    pub text: String,
    pub phone_digits: Option<String>,
}

/// Fewest digits a `q` needs to be read as (part of) a phone number.
const PHONE_DIGITS_MIN: usize = 4;

impl SearchText {
    pub fn parse(given: &str) -> Option<SearchText> {
        let text = clean_text(given)?;
        let phone_like = text
            .chars()
            .all(|c| c.is_ascii_digit() || " +-().".contains(c));
        let digits: String = text.chars().filter(char::is_ascii_digit).collect();
        let phone_digits =
            (phone_like && digits.len() >= PHONE_DIGITS_MIN && digits != text).then_some(digits);
        Some(SearchText { text, phone_digits })
    }

    /// The strings a lead's search text must contain one of (case-folded by the store).
    pub fn needles(&self) -> Vec<&str> {
        let mut needles = vec![self.text.as_str()];
        needles.extend(self.phone_digits.as_deref());
        needles
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_become_the_seed_slugs() {
        for (given, slug) in [
            ("Permit Scrape", Some("permit_scrape")),
            ("permit_scrape", Some("permit_scrape")),
            ("  PERMIT-SCRAPE ", Some("permit_scrape")),
            ("Door to door / referral", Some("door_to_door_referral")),
            ("web", Some("web")),
            (" - ", None),
        ] {
            assert_eq!(source_slug(given).as_deref(), slug, "{given}");
        }
    }

    #[test]
    fn sort_words_and_their_descending_forms() {
        assert_eq!(LeadSort::parse("city").map(|s| s.descending), Some(false));
        assert_eq!(
            LeadSort::parse("-permit_date"),
            Some(LeadSort {
                field: SortField::PermitDate,
                descending: true
            })
        );
        assert_eq!(LeadSort::parse("-created_at"), Some(LeadSort::default()));
        assert_eq!(
            LeadSort::parse("last_contact_at"),
            Some(LeadSort {
                field: SortField::LastContactAt,
                descending: false
            })
        );
        for bad in ["", "-", "name", "created_at,city", "+city", "--city"] {
            assert_eq!(LeadSort::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_phone_written_any_way_is_also_searched_by_its_digits() {
        let q = SearchText::parse(" (512) 555-0100 ").unwrap();
        assert_eq!(q.text, "(512) 555-0100");
        assert_eq!(q.phone_digits.as_deref(), Some("5125550100"));
        assert_eq!(
            SearchText::parse("+1 512.555.0100")
                .unwrap()
                .phone_digits
                .as_deref(),
            Some("15125550100")
        );
        // Plain digits are their own needle; words are not phones.
        assert_eq!(SearchText::parse("5550100").unwrap().phone_digits, None);
        assert_eq!(SearchText::parse("123 Main").unwrap().phone_digits, None);
        assert_eq!(SearchText::parse("12-3").unwrap().phone_digits, None);
        assert_eq!(SearchText::parse("   "), None);
    }
}
