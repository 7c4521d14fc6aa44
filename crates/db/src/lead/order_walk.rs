//! On SQLite, how a page of a filter the word index holds is found in last-contact or last-change
//! order: from the word index's matches, sorted, or by walking the order's own index
//! (docs/search.md "sort").
use diesel::QueryResult;

use leadhub_domain::lead::record::LeadFilter;
use leadhub_domain::lead::search::SortField;

use crate::lead::daily_counts::{rolled_up_count, RollupFilter};
use crate::ReadConnection;

/// Index entries SQLite walks in the time it lists and sorts one match of the word index: ~0.4 µs
/// an entry (its row read, the conditions checked) against ~2.7 µs a match, measured at a
/// million leads (docs/search.md "sort"); rounded down, so a close call keeps the word index.
const WALKED_PER_LISTED: i64 = 4;

/// On SQLite, whether the page of a filter the word index holds (both the caller's to know), in
/// an order an index of its own holds (`leads_last_contact`, `leads_updated`), is found sooner by
/// walking that index and checking each lead's row until `wanted` (the page and those before it)
/// are found, than by listing all `total` matches from the word index and sorting them. The walk reads about
/// `wanted` x (all live leads / `total`) entries: a broad filter ("the open leads in Texas,
/// longest untried first": 351,349 matches, 674 ms listed and sorted) is found in the first
/// hundreds; a narrow one keeps the word index. Never with `q`, which only the index holds.
pub(crate) fn walk_the_order(
    conn: &mut ReadConnection<'_>,
    filter: &LeadFilter,
    total: i64,
    wanted: i64,
) -> QueryResult<bool> {
    let in_its_index = matches!(
        filter.sort.field,
        SortField::LastContactAt | SortField::UpdatedAt
    );
    if !in_its_index || filter.q.is_some() || filter.near.is_some() {
        return Ok(false);
    }
    let Some(everyone) = RollupFilter::of(&LeadFilter::default()) else {
        return Ok(false);
    };
    let all = rolled_up_count(conn, &everyone)?;
    Ok(walk_is_sooner(total, wanted, all))
}

/// Whether walking about `wanted` x `all` / `total` index entries costs less than listing and
/// sorting `total` matches (`WALKED_PER_LISTED`).
fn walk_is_sooner(total: i64, wanted: i64, all: i64) -> bool {
    let walked = wanted.saturating_mul(all);
    walked
        <= WALKED_PER_LISTED
            .saturating_mul(total)
            .saturating_mul(total)
}

#[cfg(test)]
mod tests {
    use super::walk_is_sooner;

    #[test]
    fn a_broad_filter_walks_the_order_and_a_narrow_one_sorts_its_matches() {
        // Texas at a million leads: the first page, and the page 2,000 leads on.
        assert!(walk_is_sooner(351_349, 50, 1_000_000));
        assert!(walk_is_sooner(351_349, 2_050, 1_000_000));
        // A city of 2,000 leads: its matches are sorted.
        assert!(!walk_is_sooner(2_000, 50, 1_000_000));
        // No match at all: the walk would read every lead.
        assert!(!walk_is_sooner(0, 50, 1_000_000));
        // A tag on 50,000 leads: its first pages walk, a page 20,000 leads down sorts.
        assert!(walk_is_sooner(50_000, 50, 1_000_000));
        assert!(!walk_is_sooner(50_000, 20_000, 1_000_000));
    }
}
