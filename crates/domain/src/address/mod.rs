//! Property addresses reduced to USPS Publication 28 standard parts, for duplicate detection
//! (contract 3.3). Precision comes first: a false merge loses a lead, a missed one only
//! leaves a duplicate, so whatever cannot be read with confidence stays in the key as written
//! and two addresses only meet when their parts agree.

mod line;
mod locality;
mod one_line;
mod routes;
mod street;
mod suffixes;
mod tokens;
mod units;
mod words;

pub use one_line::{split_one_line, OneLine};

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

/// The identifiers of a unit written on its own ("Apt 4B", "#5", "Bldg 2 Apt 4"), as
/// `AddressKey::unit` holds them ("4B", "5", "2 4"); None when the text is no unit ("c/o John
/// Smith", "PO Box 5").
pub fn unit_identifiers(text: &str) -> Option<String> {
    let tokens: Vec<String> = tokens::segments(text).into_iter().flatten().collect();
    units::read_units(&tokens).map(|ids| ids.join(" "))
}

/// A property address reduced to its USPS Publication 28 standard parts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AddressKey {
    /// House number, upper case: "123", "123A", "123-1/2", "12-34"; a box's number for box
    /// addresses.
    pub number: String,
    /// Predirectional + street name + C1 suffix + postdirectional: "N MAIN ST", "5TH AVE",
    /// "MAIN ST NW", "HIGHWAY 71", "AVENUE C", "PO BOX".
    pub street: String,
    /// The secondary unit identifier only ("4", "B", "12C", "REAR"), designator dropped.
    /// Several units ("BLDG 2 APT 4") are their identifiers joined by a space ("2 4").
    pub unit: Option<String>,
    /// First five digits of a valid ZIP or ZIP+4.
    pub zip5: Option<String>,
    /// Upper case, punctuation dropped, whitespace collapsed.
    pub city: Option<String>,
    /// Two-letter upper-case code as given (validation of the code happens elsewhere).
    pub state: Option<String>,
}

impl AddressKey {
    /// None when the street line has no usable house number + street name (the caller then
    /// warns `no_address`).
    pub fn parse(
        address: &str,
        city: Option<&str>,
        state: Option<&str>,
        zip: Option<&str>,
    ) -> Option<AddressKey> {
        let zip5 = zip.and_then(locality::zip5);
        let given = line::Given {
            city,
            state,
            zip5: zip5.as_deref(),
        };
        let parts = line::read_line(address, &given)?;
        let unit = (!parts.units.is_empty()).then(|| parts.units.join(" "));
        Some(AddressKey {
            number: parts.number,
            street: parts.street,
            unit,
            zip5,
            city: city.and_then(locality::city),
            state: state.and_then(locality::state),
        })
    }

    /// "123 N MAIN ST" plus " #4" when a unit is present: number, street and unit ("PO BOX 12"
    /// for a box); the lookup key for candidates and the lead's `address_standardized`. Each identifier of a several-part unit gets its own "#", so the key
    /// reads back as the same units.
    pub fn street_key(&self) -> String {
        let mut key = if routes::is_box_street(&self.street) {
            format!("{} {}", self.street, self.number)
        } else {
            format!("{} {}", self.number, self.street)
        };
        if let Some(unit) = &self.unit {
            for id in unit.split(' ') {
                key.push_str(" #");
                key.push_str(id);
            }
        }
        key
    }

    /// The zip5 when present, else "CITY|ST" when city and state are both present, else "".
    pub fn locality_key(&self) -> String {
        match (&self.zip5, &self.city, &self.state) {
            (Some(zip), _, _) => zip.clone(),
            (None, Some(city), Some(state)) => format!("{city}|{state}"),
            _ => String::new(),
        }
    }

    /// street_key + "|" + locality_key: what a unique index holds.
    pub fn full_key(&self) -> String {
        self.full_key_from(&self.street_key())
    }

    /// The keys a lead is stored under: its street key, and its full key when the locality is
    /// known (without one, two leads of a street cannot be told apart as one property).
    pub fn stored_keys(&self) -> (String, Option<String>) {
        let street_key = self.street_key();
        let address_key =
            (!self.locality_key().is_empty()).then(|| self.full_key_from(&street_key));
        (street_key, address_key)
    }

    /// `full_key` for a caller that has built `street_key` already (it is not free).
    pub fn full_key_from(&self, street_key: &str) -> String {
        format!("{street_key}|{}", self.locality_key())
    }

    /// The contract's rule: number, street and unit agree, and either both ZIP5s are present
    /// and agree, or (when either lacks a ZIP) normalised city and state are both present on
    /// both sides and agree.
    pub fn same_property(&self, other: &AddressKey) -> bool {
        if self.number != other.number || self.street != other.street || self.unit != other.unit {
            return false;
        }
        match (&self.zip5, &other.zip5) {
            (Some(a), Some(b)) => a == b,
            _ => {
                let both = |a: &Option<String>, b: &Option<String>| matches!((a, b), (Some(a), Some(b)) if a == b);
                both(&self.city, &other.city) && both(&self.state, &other.state)
            }
        }
    }
}
