//! Tags: the words a team sorts its leads by ("hot", "storm 2026", "spanish"), added and taken
//! off by whoever may edit a lead, listed with `tag=`. Rules: docs/working-leads.md "Tags".
use std::collections::BTreeSet;

use serde_json::json;

use super::model::{kind, NewActivity};
use super::repository::LeadChange;
use crate::lead::record::Lead;
use crate::parse::clean_text;

/// Longest tag, in characters.
pub const TAG_MAX_CHARS: usize = 40;
/// Most tags one lead carries.
pub const TAGS_PER_LEAD: usize = 20;
/// What separates tags in a spreadsheet cell (and so may not stand in one).
pub const TAG_SEPARATORS: [char; 2] = [',', ';'];

/// Why a tag was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagProblem {
    Empty,
    TooLong,
    Separator,
}

impl TagProblem {
    pub fn message(self) -> String {
        match self {
            TagProblem::Empty => "A tag needs some text".into(),
            TagProblem::TooLong => format!("A tag has at most {TAG_MAX_CHARS} characters"),
            TagProblem::Separator => {
                "A tag holds no comma or semicolon (they separate tags)".into()
            }
        }
    }
}

/// A tag as stored: spaces trimmed and collapsed, invisible characters dropped, lower case, so
/// "Hot", " hot " and "HOT" are one tag.
pub fn parse_tag(given: &str) -> Result<String, TagProblem> {
    let tag = clean_text(given).ok_or(TagProblem::Empty)?.to_lowercase();
    if tag.contains(TAG_SEPARATORS) {
        return Err(TagProblem::Separator);
    }
    if tag.chars().count() > TAG_MAX_CHARS {
        return Err(TagProblem::TooLong);
    }
    Ok(tag)
}

/// The tags of a spreadsheet cell ("hot, storm 2026"): each piece between separators, blank
/// pieces skipped; a piece refused is given back as it was written.
pub fn tags_of_cell(cell: &str) -> (BTreeSet<String>, Vec<String>) {
    let mut tags = BTreeSet::new();
    let mut refused = Vec::new();
    for piece in cell.split(TAG_SEPARATORS) {
        match parse_tag(piece) {
            Ok(tag) => {
                tags.insert(tag);
            }
            Err(TagProblem::Empty) => {}
            Err(_) => refused.push(piece.trim().to_owned()),
        }
    }
    (tags, refused)
}

/// Why a piece of a tags field (`tags_of_cell` refused it) is no tag, for a person.
pub fn not_a_tag(piece: &str) -> String {
    format!("'{piece}' is not a tag: {}", TagProblem::TooLong.message())
}

/// The tags a person typed in one field (the lead page, the bulk bar, the upload form), or why
/// the first piece that is no tag is refused: a field, unlike a file's cell, is refused whole.
pub fn tags_of_field(text: &str) -> Result<BTreeSet<String>, String> {
    let (tags, refused) = tags_of_cell(text);
    match refused.first() {
        Some(piece) => Err(not_a_tag(piece)),
        None => Ok(tags),
    }
}

/// A change of a lead's tags: `set` replaces them all (None keeps them), then `add` and `remove`
/// apply. Each tag is stored-form already (`parse_tag`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagEdit {
    pub set: Option<BTreeSet<String>>,
    pub add: BTreeSet<String>,
    pub remove: BTreeSet<String>,
}

impl TagEdit {
    /// Adds these tags.
    pub fn adding(tags: impl IntoIterator<Item = String>) -> TagEdit {
        TagEdit {
            add: tags.into_iter().collect(),
            ..TagEdit::default()
        }
    }

    /// Takes these tags off.
    pub fn removing(tags: impl IntoIterator<Item = String>) -> TagEdit {
        TagEdit {
            remove: tags.into_iter().collect(),
            ..TagEdit::default()
        }
    }

    /// The tags a lead carrying `current` ends with.
    pub fn applied_to(&self, current: &[String]) -> BTreeSet<String> {
        let mut tags = self
            .set
            .clone()
            .unwrap_or_else(|| current.iter().cloned().collect());
        tags.extend(self.add.iter().cloned());
        tags.retain(|t| !self.remove.contains(t));
        tags
    }
}

/// Sets the lead's tags to what `edit` makes of them; the timeline tells what was added and taken
/// off, `lead.updated` the old and new lists. More than `TAGS_PER_LEAD`: the message to refuse
/// it with.
pub(super) fn set_tags(change: &mut LeadChange, lead: &Lead, edit: &TagEdit) -> Result<(), String> {
    let old: BTreeSet<String> = lead.work.tags.iter().cloned().collect();
    let new = edit.applied_to(&lead.work.tags);
    if new == old {
        return Ok(());
    }
    // A lead over the limit (two merged leads' tags) may still lose tags.
    if new.len() > TAGS_PER_LEAD && new.len() > old.len() {
        return Err(format!(
            "A lead carries at most {TAGS_PER_LEAD} tags; this would give it {}",
            new.len()
        ));
    }
    let added: Vec<&String> = new.difference(&old).collect();
    let removed: Vec<&String> = old.difference(&new).collect();
    change.activity.push(NewActivity {
        kind: kind::TAGS_CHANGED,
        detail: json!({"added": added, "removed": removed}),
    });
    change
        .changes
        .insert("tags".into(), json!({"old": old, "new": new}));
    change.tags = Some(new.into_iter().collect());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_trimmed_collapsed_and_lower_case() {
        assert_eq!(parse_tag("  Storm \t 2026 "), Ok("storm 2026".into()));
        assert_eq!(parse_tag("HOT"), Ok("hot".into()));
        assert_eq!(parse_tag(" \u{200B} "), Err(TagProblem::Empty));
        assert_eq!(parse_tag("a,b"), Err(TagProblem::Separator));
        assert_eq!(parse_tag(&"x".repeat(41)), Err(TagProblem::TooLong));
        assert_eq!(parse_tag(&"é".repeat(40)), Ok("é".repeat(40)));
    }

    #[test]
    fn a_cell_holds_tags_between_commas_and_semicolons() {
        let (tags, refused) = tags_of_cell("Hot, storm 2026;; hot ;");
        assert_eq!(tags, BTreeSet::from(["hot".into(), "storm 2026".into()]));
        assert!(refused.is_empty());
        let long = "y".repeat(50);
        let (tags, refused) = tags_of_cell(&format!("ok; {long}"));
        assert_eq!(tags, BTreeSet::from(["ok".into()]));
        assert_eq!(refused, [long]);
    }

    #[test]
    fn an_edit_replaces_then_adds_then_removes() {
        let current = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(
            TagEdit::adding(["c".to_owned()]).applied_to(&current),
            BTreeSet::from(["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(
            TagEdit::removing(["a".to_owned()]).applied_to(&current),
            BTreeSet::from(["b".into()])
        );
        let edit = TagEdit {
            set: Some(BTreeSet::from(["x".into(), "y".into()])),
            add: BTreeSet::from(["z".into()]),
            remove: BTreeSet::from(["x".into()]),
        };
        assert_eq!(
            edit.applied_to(&current),
            BTreeSet::from(["y".into(), "z".into()])
        );
    }
}
