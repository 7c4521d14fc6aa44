//! What an import did, counted as it goes, and the summary people read at the end.
use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

/// The figures of an import.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportSummary {
    /// Data rows read (blank rows are not counted).
    pub rows: u64,
    pub created: u64,
    /// Merged into a stored lead that changed.
    pub updated: u64,
    /// Duplicates that changed nothing: the lead was as the row says, or ended its chunk as it
    /// began it (a merge later rows undid, `ElementOutcome::lead_changed`).
    pub skipped: u64,
    /// Rows not imported: unreadable, shifted, with no usable field, or refused by a rule.
    pub rejected: u64,
    /// Rows kept as submissions but not stored as leads (an unexpected error).
    pub failed: u64,
    /// Cells dropped or flagged in rows that were imported.
    pub warnings: u64,
    /// Notes added to the rows' leads (a note the lead had already is not counted).
    pub notes: u64,
    /// Leads the rows created whose status, owner and follow-up day were set as the file says.
    pub work: u64,
    /// Each rejection reason and warning code, with how often it came.
    pub reasons: BTreeMap<String, u64>,
    /// The encoding the file was read in.
    pub encoding: String,
    /// `header -> field` of each column used.
    pub mapping: Vec<(String, String)>,
    /// The columns no field takes.
    pub ignored: Vec<String>,
    pub elapsed: Duration,
    /// The import was asked to stop before the end of the file: `rows` were read and settled,
    /// and a rerun of the file skips what they stored.
    pub stopped: bool,
}

impl ImportSummary {
    pub(super) fn count_reason(&mut self, code: &str) {
        *self.reasons.entry(code.to_owned()).or_default() += 1;
    }

    /// The `n` most frequent reasons, most frequent first (ties by name).
    pub fn top_reasons(&self, n: usize) -> Vec<(String, u64)> {
        let mut all: Vec<(String, u64)> =
            self.reasons.iter().map(|(k, v)| (k.clone(), *v)).collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(n);
        all
    }

    /// The summary as printed on stdout: one `name: value` per line, then the top reasons, the
    /// mapping and the ignored columns.
    pub fn render(&self) -> String {
        let mut out = format!(
            "rows: {}\ncreated: {}\nupdated: {}\nskipped: {}\nrejected: {}\nfailed: {}\nwarnings: {}\nencoding: {}\n",
            self.rows, self.created, self.updated, self.skipped, self.rejected, self.failed, self.warnings, self.encoding
        );
        if self.notes > 0 {
            let _ = writeln!(out, "notes: {}", self.notes);
        }
        if self.work > 0 {
            let _ = writeln!(out, "work: {}", self.work);
        }
        for (reason, count) in self.top_reasons(5) {
            let _ = writeln!(out, "reason: {reason} {count}");
        }
        for (header, field) in &self.mapping {
            let _ = writeln!(out, "column: {header} -> {field}");
        }
        for header in &self.ignored {
            let _ = writeln!(out, "ignored: {header}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_reasons_are_the_most_frequent_first() {
        let mut s = ImportSummary::default();
        for code in ["b", "a", "c", "a", "b", "a", "d", "e", "f"] {
            s.count_reason(code);
        }
        assert_eq!(
            s.top_reasons(5),
            [
                ("a".into(), 3),
                ("b".into(), 2),
                ("c".into(), 1),
                ("d".into(), 1),
                ("e".into(), 1)
            ]
        );
        assert!(s.render().contains("reason: a 3\nreason: b 2\n"));
    }
}
