//! Spreadsheet columns that hold part of the street line. A unit column ("Unit #", "Apt",
//! "Address Line 2"): property lists give the unit of a condo or an apartment a column of its
//! own, and without it two units of one building would be one property, the second row merged
//! into the first's lead. The street split into parts ("Situs Street Number", "Situs Street
//! Name"), as appraisal rolls keep it: without them such a file has no address at all.
use crate::address::{unit_identifiers, AddressKey};
use crate::lead::fields::max_len;

use super::rows::CellIssue;

/// The street line of a row with no address cell, from its parts' cells in the order a street is
/// written (number, direction, name, suffix: `1200`, `E`, `6th`, `St`); None when no part has a
/// cell. A row with an address cell keeps it: the parts say the same.
pub(super) fn street_of_parts(
    address: &Option<String>,
    parts: [Option<String>; 4],
) -> Option<String> {
    if address.is_some() {
        return None;
    }
    let words: Vec<String> = parts.into_iter().flatten().collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The street with the unit cell joined after it: a bare identifier as `#5` (`100 Congress Ave
/// #5`), a unit written with its designator as written (`Apt 4B`, `#12`), unless the street
/// already names that unit (a file that has the unit in both columns). A unit without a street, a
/// cell that reads as no unit, or one that would make the street too long, is dropped with a
/// warning.
pub(super) fn join_unit(
    street: &mut Option<String>,
    unit: Option<String>,
    field: &'static str,
    issues: &mut Vec<CellIssue>,
) {
    let Some(unit) = unit else {
        return;
    };
    let Some(line) = street.as_deref() else {
        let message = "a unit without a street address; dropped".to_owned();
        issues.push(CellIssue::new(
            field,
            &unit,
            "unit_without_address",
            message,
        ));
        return;
    };
    let written = if unit.starts_with('#') || unit.contains(char::is_whitespace) {
        unit.clone()
    } else {
        format!("#{unit}")
    };
    let Some(named) = unit_identifiers(&written) else {
        // A second address line that is no unit ("c/o John Smith", "PO Box 5") would become
        // part of the street's name, and the lead would miss its duplicates.
        let message =
            format!("'{unit}' is not a unit (a number, or Apt, Unit, Ste... and one); dropped");
        issues.push(CellIssue::new(field, &unit, "not_a_unit", message));
        return;
    };
    let line_unit = AddressKey::parse(line, None, None, None).and_then(|k| k.unit);
    if line_unit.as_ref() == Some(&named) {
        return;
    }
    let joined = format!("{line} {written}");
    let limit = max_len("address");
    if joined.chars().count() > limit {
        let message = format!("the address and unit are longer than {limit} characters; dropped");
        issues.push(CellIssue::new(field, &unit, "too_long", message));
        return;
    }
    *street = Some(joined);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_street_in_parts_is_one_line_where_the_row_has_none() {
        let parts = |p: [&str; 4]| p.map(|w| Some(w.to_owned()).filter(|w| !w.is_empty()));
        let line = street_of_parts(&None, parts(["1200", "E", "6th", "St"]));
        assert_eq!(line.as_deref(), Some("1200 E 6th St"));
        let line = street_of_parts(&None, parts(["45", "", "Oak Hollow", "Dr"]));
        assert_eq!(line.as_deref(), Some("45 Oak Hollow Dr"));
        assert_eq!(street_of_parts(&None, parts(["", "", "", ""])), None);
        let written = Some("1200 East 6th Street".to_owned());
        assert_eq!(
            street_of_parts(&written, parts(["1200", "E", "6th", "St"])),
            None
        );
    }

    fn joined(street: Option<&str>, unit: &str) -> (Option<String>, Vec<&'static str>) {
        let mut street = street.map(str::to_owned);
        let mut issues = Vec::new();
        join_unit(
            &mut street,
            Some(unit.to_owned()),
            "address_unit",
            &mut issues,
        );
        (street, issues.iter().map(|i| i.code).collect())
    }

    #[test]
    fn a_unit_cell_is_joined_after_the_street() {
        for (street, unit, whole) in [
            ("100 Congress Ave", "5", "100 Congress Ave #5"),
            ("100 Congress Ave", "4B", "100 Congress Ave #4B"),
            ("100 Congress Ave", "Apt 4B", "100 Congress Ave Apt 4B"),
            ("100 Congress Ave", "#12", "100 Congress Ave #12"),
            ("100 Congress Ave", "Rear", "100 Congress Ave #Rear"),
            (
                "100 Congress Ave",
                "Building B",
                "100 Congress Ave Building B",
            ),
            // Already there, however written: nothing is added.
            ("100 Congress Ave Unit 5", "5", "100 Congress Ave Unit 5"),
            ("100 Congress Ave #5", "Unit 5", "100 Congress Ave #5"),
            // Another unit of the street line (a building) keeps it and gains this one.
            ("100 Congress Ave Bldg 2", "5", "100 Congress Ave Bldg 2 #5"),
            // A route's number is no unit.
            ("12 Route 5", "5", "12 Route 5 #5"),
        ] {
            assert_eq!(joined(Some(street), unit), (Some(whole.to_owned()), vec![]));
        }
    }

    #[test]
    fn a_unit_without_a_street_no_unit_or_too_long_is_dropped_with_a_warning() {
        assert_eq!(joined(None, "5"), (None, vec!["unit_without_address"]));
        for line_two in ["c/o John Smith", "PO Box 5"] {
            let street = Some("100 Congress Ave".to_owned());
            assert_eq!(
                joined(Some("100 Congress Ave"), line_two),
                (street, vec!["not_a_unit"])
            );
        }
        let long = "9".repeat(max_len("address") - 3);
        assert_eq!(
            joined(Some(&long), "12"),
            (Some(long.clone()), vec!["too_long"])
        );
    }

    #[test]
    fn units_of_one_building_stay_apart() {
        let key = |unit: &str| {
            let (street, _) = joined(Some("100 Congress Ave"), unit);
            AddressKey::parse(&street.unwrap(), None, None, Some("78701")).map(|k| k.full_key())
        };
        assert_ne!(key("5"), key("6"));
        assert_eq!(key("6"), key("Apt 6"));
    }
}
