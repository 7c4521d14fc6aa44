//! The leads near a place (docs/working-leads.md, "Leads nearby"): a circle a lead's coordinates
//! fall in, and how far a lead is from its centre.
//!
//! Distances are in miles (the service's users are American) on the flat-earth
//! (equirectangular) approximation: a degree of latitude is 69.09 miles (the mean radius of the
//! earth, 3,958.8 miles), a degree of longitude that times the cosine of the centre's latitude. Within the 100 miles a circle may have, it is
//! off by well under one percent from the great-circle distance, and it is plain arithmetic, so
//! both databases filter and order by the very figure the pages show.

use crate::lead::fields::LeadFields;

/// The earth's mean radius in miles.
const EARTH_MILES: f64 = 3958.8;

/// Miles in a degree of a great circle.
const MILES_PER_DEGREE: f64 = EARTH_MILES * std::f64::consts::PI / 180.0;

/// The largest radius a list takes: past it the flat approximation drifts, and a salesperson's
/// "near" is a drive, not a state.
pub const MAX_MILES: f64 = 100.0;

/// The smallest radius: a block (about 500 feet).
pub const MIN_MILES: f64 = 0.1;

/// The radius when none is given: a mile, a walk along the street from a lead's door.
pub const DEFAULT_MILES: f64 = 1.0;

/// A place and a radius: the leads whose coordinates are within `miles` of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Circle {
    pub latitude: f64,
    pub longitude: f64,
    pub miles: f64,
}

/// The box around a circle, in degrees: what an index on the coordinates can seek.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub south: f64,
    pub north: f64,
    pub west: f64,
    pub east: f64,
}

impl Circle {
    /// A circle around `latitude,longitude` (degrees) of `miles`; None when a coordinate is off
    /// the globe or the radius is outside `MIN_MILES..=MAX_MILES`.
    pub fn new(latitude: f64, longitude: f64, miles: f64) -> Option<Circle> {
        let on_globe = on_globe(latitude, longitude);
        (on_globe && (MIN_MILES..=MAX_MILES).contains(&miles)).then_some(Circle {
            latitude,
            longitude,
            miles,
        })
    }

    /// `"30.2672,-97.7431"` (spaces allowed around each number) read as a place.
    pub fn place(given: &str) -> Option<(f64, f64)> {
        let (latitude, longitude) = given.split_once(',')?;
        let latitude: f64 = latitude.trim().parse().ok()?;
        let longitude: f64 = longitude.trim().parse().ok()?;
        on_globe(latitude, longitude).then_some((latitude, longitude))
    }

    /// How much shorter a degree of longitude is than one of latitude at the centre. Never
    /// below a hundredth, so a circle at a pole stays a finite box.
    pub fn longitude_scale(&self) -> f64 {
        self.latitude.to_radians().cos().max(0.01)
    }

    /// The radius in degrees of latitude.
    pub fn degrees(&self) -> f64 {
        self.miles / MILES_PER_DEGREE
    }

    /// The box the circle fits in.
    pub fn bounds(&self) -> Bounds {
        let lat = self.degrees();
        let lon = lat / self.longitude_scale();
        Bounds {
            south: self.latitude - lat,
            north: self.latitude + lat,
            west: self.longitude - lon,
            east: self.longitude + lon,
        }
    }

    /// Miles from the centre to a point. A point is in the circle when this is at most
    /// `miles`; the databases compare its square in degrees (`lead_search::within`).
    pub fn miles_to(&self, latitude: f64, longitude: f64) -> f64 {
        let north = latitude - self.latitude;
        let east = (longitude - self.longitude) * self.longitude_scale();
        (north * north + east * east).sqrt() * MILES_PER_DEGREE
    }

    /// Miles from the centre to a lead; None for a lead without coordinates.
    pub fn miles_to_lead(&self, lead: &LeadFields) -> Option<f64> {
        Some(self.miles_to(lead.latitude?, lead.longitude?))
    }
}

/// Degrees a place can have: a latitude within ±90, a longitude within ±180 (NaN is neither).
fn on_globe(latitude: f64, longitude: f64) -> bool {
    (-90.0..=90.0).contains(&latitude) && (-180.0..=180.0).contains(&longitude)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Austin's Capitol.
    const CAPITOL: (f64, f64) = (30.2747, -97.7404);

    /// Whether a point is in the circle: the rule the databases' sum stands for.
    fn holds(circle: &Circle, latitude: f64, longitude: f64) -> bool {
        circle.miles_to(latitude, longitude) <= circle.miles
    }

    fn around(miles: f64) -> Circle {
        Circle::new(CAPITOL.0, CAPITOL.1, miles).expect("a place on the globe")
    }

    /// The great-circle distance (haversine), to hold the approximation against.
    fn great_circle(a: (f64, f64), b: (f64, f64)) -> f64 {
        let (lat1, lat2) = (a.0.to_radians(), b.0.to_radians());
        let north = (b.0 - a.0).to_radians() / 2.0;
        let east = (b.1 - a.1).to_radians() / 2.0;
        let h = north.sin().powi(2) + lat1.cos() * lat2.cos() * east.sin().powi(2);
        2.0 * EARTH_MILES * h.sqrt().asin()
    }

    #[test]
    fn distances_are_within_a_percent_of_the_great_circle() {
        let capitol = around(1.0);
        // The University of Texas tower, Round Rock, San Antonio's Alamo, 100 miles out north.
        for place in [
            (30.2861, -97.7394),
            (30.5083, -97.6789),
            (29.4260, -98.4861),
            (31.7200, -97.7404),
        ] {
            let flat = capitol.miles_to(place.0, place.1);
            let round = great_circle(CAPITOL, place);
            assert!(
                (flat - round).abs() <= round / 100.0,
                "{place:?}: {flat} vs {round}"
            );
        }
        assert_eq!(capitol.miles_to(CAPITOL.0, CAPITOL.1), 0.0);
    }

    #[test]
    fn a_point_is_held_exactly_when_its_distance_is_within_the_radius() {
        let circle = around(1.0);
        let east_edge = CAPITOL.1 + circle.degrees() / circle.longitude_scale();
        assert!(holds(&circle, CAPITOL.0, east_edge - 1e-6));
        assert!(!holds(&circle, CAPITOL.0, east_edge + 1e-6));
        assert!(holds(
            &circle,
            CAPITOL.0 + circle.degrees() - 1e-6,
            CAPITOL.1
        ));
        assert!(!holds(
            &circle,
            CAPITOL.0 + circle.degrees() + 1e-6,
            CAPITOL.1
        ));
        let b = circle.bounds();
        assert!(b.south < CAPITOL.0 && CAPITOL.0 < b.north);
        assert!((b.east - east_edge).abs() < 1e-12 && b.west < CAPITOL.1);
    }

    #[test]
    fn a_place_is_two_numbers_on_the_globe() {
        assert_eq!(
            Circle::place(" 30.2747 , -97.7404 "),
            Some((30.2747, -97.7404))
        );
        for bad in [
            "30.2747",
            "30.2747;-97.7404",
            "north,west",
            "91,0",
            "0,181",
            "NaN,0",
        ] {
            assert_eq!(Circle::place(bad), None, "{bad}");
        }
        assert!(Circle::new(30.0, -97.0, MAX_MILES).is_some());
        assert!(Circle::new(30.0, -97.0, MAX_MILES + 0.1).is_none());
        assert!(Circle::new(30.0, -97.0, 0.05).is_none());
        assert!(Circle::new(30.0, -97.0, f64::NAN).is_none());
    }
}
