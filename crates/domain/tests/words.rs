//! The words the domain's enums are stored and sent as: each reads back as itself; stored
//! statuses only in their exact spelling; roles, relationship types and business statuses from
//! requests in any case and with surrounding spaces.
use leadhub_domain::business::{BusinessStatus, RelationshipType};
use leadhub_domain::jobs::JobStatus;
use leadhub_domain::lead::record::{EnrichmentStatus, LeadAction};
use leadhub_domain::session::TokenKind;
use leadhub_domain::submission::SubmissionStatus;
use leadhub_domain::team::Role;

/// Each word reads back as its variant, `Display` writes the same word, and an unknown word or
/// another spelling of a known one is refused.
fn stored_exactly<T>(all: &[(T, &str)])
where
    T: Copy + PartialEq + std::fmt::Debug + std::fmt::Display + std::str::FromStr,
{
    for &(variant, word) in all {
        assert_eq!(word.parse::<T>().ok(), Some(variant), "{word}");
        assert_eq!(variant.to_string(), word);
        assert!(word.to_uppercase().parse::<T>().is_err(), "{word}");
        assert!(format!(" {word}").parse::<T>().is_err(), "{word}");
    }
    assert!("bogus".parse::<T>().is_err());
    assert!("".parse::<T>().is_err());
}

#[test]
fn stored_words_read_back_exactly() {
    use SubmissionStatus as S;
    stored_exactly(&[
        (S::Pending, "pending"),
        (S::Processing, "processing"),
        (S::Completed, "completed"),
        (S::Failed, "failed"),
        (S::Duplicate, "duplicate"),
    ]);
    stored_exactly(&[
        (EnrichmentStatus::Complete, "complete"),
        (EnrichmentStatus::Partial, "partial"),
        (EnrichmentStatus::PendingRetry, "pending_retry"),
        (EnrichmentStatus::Skipped, "skipped"),
    ]);
    stored_exactly(&[
        (LeadAction::Created, "created"),
        (LeadAction::Updated, "updated"),
        (LeadAction::Skipped, "skipped"),
    ]);
    stored_exactly(&[
        (JobStatus::Queued, "queued"),
        (JobStatus::Running, "running"),
        (JobStatus::Done, "done"),
        (JobStatus::Dead, "dead"),
    ]);
    stored_exactly(&[
        (TokenKind::Access, "access"),
        (TokenKind::Refresh, "refresh"),
    ]);
    assert_eq!(S::Completed.as_str(), "completed");
    assert_eq!(EnrichmentStatus::PendingRetry.as_str(), "pending_retry");
    assert_eq!(JobStatus::Dead.as_str(), "dead");
}

#[test]
fn request_words_are_read_in_any_case() {
    for (given, role) in [
        ("owner", Role::Owner),
        (" Admin ", Role::Admin),
        ("MEMBER", Role::Member),
    ] {
        assert_eq!(Role::parse(given), Some(role), "{given}");
        assert_eq!(Role::parse(role.as_str()), Some(role));
    }
    assert_eq!(Role::parse("superuser"), None);
    assert_eq!(Role::parse(""), None);

    assert_eq!(
        RelationshipType::NAMES,
        ["lead_buyer", "lead_source", "marketing_partner", "prospect"]
    );
    for name in RelationshipType::NAMES {
        let found = RelationshipType::parse(&format!(" {} ", name.to_uppercase()));
        assert_eq!(found.map(RelationshipType::as_str), Some(name));
    }
    assert_eq!(RelationshipType::parse("lead buyer"), None);

    assert_eq!(BusinessStatus::NAMES, ["prospect", "active", "inactive"]);
    for name in BusinessStatus::NAMES {
        let found = BusinessStatus::parse(&format!("{}\t", name.to_uppercase()));
        assert_eq!(found.map(BusinessStatus::as_str), Some(name));
    }
    assert_eq!(BusinessStatus::parse("closed"), None);
}
