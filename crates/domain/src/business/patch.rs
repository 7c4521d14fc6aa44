//! A change to a stored business (`PATCH`): any field an import accepts, name included.
use crate::business::model::{
    invalid_phone_message, Business, BusinessFields, BusinessStatus, NewBusiness, RelationshipType,
};
use crate::error::{FieldError, LocPart};
use crate::parse::{clean_text, normalize_phone};

/// None leaves a field as it is; for the optional fields Some(None) clears it. The request
/// rules (a name is never blank, a state code, rating 0..=5, review count >= 0) ran before.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BusinessPatch {
    pub status: Option<BusinessStatus>,
    pub relationship_type: Option<RelationshipType>,
    pub name: Option<String>,
    pub phone: Option<Option<String>>,
    pub website: Option<Option<String>>,
    pub address: Option<Option<String>>,
    pub city: Option<Option<String>>,
    pub state: Option<Option<String>>,
    pub zip_code: Option<Option<String>>,
    /// Stored as given (no categorising).
    pub industry: Option<Option<String>>,
    pub rating: Option<Option<f64>>,
    pub review_count: Option<Option<i64>>,
}

/// A business's fields after a patch, normalised as an import normalises them (phone to
/// E.164, state upper case, the duplicate keys rebuilt from the new name, phone and website).
#[derive(Debug, Clone, PartialEq)]
pub struct PatchedBusiness {
    pub fields: NewBusiness,
    pub status: String,
    pub relationship_type: String,
}

impl BusinessPatch {
    /// `stored` with this patch applied; None when the result breaks an element rule (which
    /// the request rules already refused).
    pub fn applied_to(&self, stored: &Business) -> Option<PatchedBusiness> {
        fn pick<T: Clone>(change: &Option<Option<T>>, kept: &Option<T>) -> Option<T> {
            change.clone().unwrap_or_else(|| kept.clone())
        }
        // A phone stored before phones were checked may be invalid; a patch that leaves it
        // keeps it as it is rather than refusing every other change.
        let phone = match &self.phone {
            Some(change) => change.clone(),
            None => None,
        };
        let fields = BusinessFields {
            name: Some(self.name.clone().unwrap_or_else(|| stored.name.clone())),
            phone,
            website: pick(&self.website, &stored.website),
            address: pick(&self.address, &stored.address),
            city: pick(&self.city, &stored.city),
            state: pick(&self.state, &stored.state),
            zip_code: pick(&self.zip_code, &stored.zip_code),
            industry: pick(&self.industry, &stored.industry),
            rating: pick(&self.rating, &stored.rating),
            review_count: pick(&self.review_count, &stored.review_count),
        };
        let mut fields = NewBusiness::from_fields(&fields, false)?;
        if self.phone.is_none() {
            fields.phone = stored.phone.clone();
        }
        Some(PatchedBusiness {
            fields,
            status: self
                .status
                .map_or_else(|| stored.status.clone(), |s| s.as_str().to_owned()),
            relationship_type: self.relationship_type.map_or_else(
                || stored.relationship_type.clone(),
                |r| r.as_str().to_owned(),
            ),
        })
    }
}

impl BusinessPatch {
    /// What the patch asks that no business may hold, as a 422 (the element rules a request
    /// cannot break otherwise: an invalid phone). A PATCH that would drop a value it sets
    /// would do silently less than asked (contract 1).
    pub fn problems(&self) -> Vec<FieldError> {
        let mut problems = Vec::new();
        if let Some(Some(phone)) = &self.phone {
            if let Some(phone) = clean_text(phone) {
                if normalize_phone(&phone).is_none() {
                    problems.push(FieldError::body(
                        &[LocPart::from("phone")],
                        "value_error",
                        format!("Value error, {}", invalid_phone_message(&phone)),
                    ));
                }
            }
        }
        problems
    }
}

/// Whether a patched business differs from the stored one (else nothing is written and
/// `updated_at` stays).
pub fn changes(stored: &Business, patched: &PatchedBusiness) -> bool {
    let f = &patched.fields;
    stored.name != f.name
        || stored.phone != f.phone
        || stored.website != f.website
        || stored.address != f.address
        || stored.city != f.city
        || stored.state != f.state
        || stored.zip_code != f.zip_code
        || stored.industry != f.industry
        || stored.rating != f.rating
        || stored.review_count != f.review_count
        || stored.status != patched.status
        || stored.relationship_type != patched.relationship_type
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored() -> Business {
        Business {
            id: 1,
            team_id: None,
            name: "Acme Plumbing LLC".into(),
            phone: Some("+15125550100".into()),
            website: Some("https://acme.example".into()),
            address: None,
            city: Some("Austin".into()),
            state: Some("TX".into()),
            zip_code: None,
            industry: Some("plumbing".into()),
            rating: Some(4.5),
            review_count: Some(12),
            relationship_type: "prospect".into(),
            status: "prospect".into(),
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn a_renamed_business_gets_a_new_name_key_and_keeps_the_rest() {
        let patch = BusinessPatch {
            name: Some("Renamed Roofing".into()),
            phone: Some(Some("(512) 555-0199".into())),
            rating: Some(None),
            ..BusinessPatch::default()
        };
        let patched = patch.applied_to(&stored()).unwrap();
        assert_eq!(patched.fields.name, "Renamed Roofing");
        assert_eq!(
            patched.fields.name_key,
            crate::business::name_key("Renamed Roofing")
        );
        assert_eq!(patched.fields.phone.as_deref(), Some("+15125550199"));
        assert_eq!(patched.fields.rating, None);
        assert_eq!(patched.fields.industry.as_deref(), Some("plumbing"));
        assert_eq!(
            patched.fields.website_domain.as_deref(),
            Some("acme.example")
        );
        assert!(changes(&stored(), &patched));
    }

    #[test]
    fn a_phone_is_checked_only_when_the_patch_sets_it() {
        let legacy = Business {
            phone: Some("call us".into()),
            ..stored()
        };
        let renamed = BusinessPatch {
            name: Some("Renamed".into()),
            ..BusinessPatch::default()
        };
        let patched = renamed.applied_to(&legacy).unwrap();
        assert_eq!(patched.fields.phone.as_deref(), Some("call us"));
        let bad = BusinessPatch {
            phone: Some(Some("555-1234".into())),
            ..BusinessPatch::default()
        };
        assert_eq!(bad.applied_to(&stored()), None);
        assert_eq!(
            bad.problems()[0].loc,
            vec![LocPart::from("body"), LocPart::from("phone")]
        );
        assert!(renamed.problems().is_empty());
    }

    #[test]
    fn an_empty_patch_changes_nothing() {
        let patched = BusinessPatch::default().applied_to(&stored()).unwrap();
        assert!(!changes(&stored(), &patched));
    }
}
