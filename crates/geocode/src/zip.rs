//! Offline geocoding to a ZIP code's centre, from the table compiled into the binary
//! (`data/zip_centroids.csv`, see `data/README.md`). Coarse: a ZIP spans anything from a block to
//! hundreds of square miles, so results say `zip_centroid` and carry no county (a ZIP may straddle
//! counties). It never fails and costs no request, which makes it the usual last resort.
use std::collections::HashMap;
use std::sync::OnceLock;

use async_trait::async_trait;
use leadhub_domain::enrich::{GeocodeOutcome, GeocodeQuery, GeocodeResult, Geocoder, ZIP_CENTROID};

/// The adapter's name in `LEADHUB_GEOCODER` and in `GeocodeResult::source`.
pub const ZIP: &str = "zip";

const ZIP_CENTROIDS_CSV: &str = include_str!("../data/zip_centroids.csv");

#[derive(Debug, Default, Clone, Copy)]
pub struct ZipCentroidGeocoder;

impl ZipCentroidGeocoder {
    /// Latitude and longitude of a ZIP's centre, by its first five digits.
    pub fn centroid(zip_code: &str) -> Option<(f64, f64)> {
        let zip5 = zip_code.trim().get(..5)?;
        if !zip5.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        centroids().get(zip5).copied()
    }
}

/// The table, parsed on first use (about 34,000 rows) and kept for the life of the process.
fn centroids() -> &'static HashMap<&'static str, (f64, f64)> {
    static TABLE: OnceLock<HashMap<&'static str, (f64, f64)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        ZIP_CENTROIDS_CSV
            .lines()
            .skip(1) // header: zip,latitude,longitude
            .filter_map(|line| {
                let mut fields = line.trim_end_matches('\r').split(',');
                let zip = fields.next()?;
                let lat = fields.next()?.parse().ok()?;
                let lon = fields.next()?.parse().ok()?;
                Some((zip, (lat, lon)))
            })
            .collect()
    })
}

#[async_trait]
impl Geocoder for ZipCentroidGeocoder {
    async fn geocode(&self, query: &GeocodeQuery) -> GeocodeOutcome {
        let Some((latitude, longitude)) = query.zip_code.as_deref().and_then(Self::centroid) else {
            return Ok(None);
        };
        Ok(Some(GeocodeResult {
            latitude,
            longitude,
            source: ZIP.to_string(),
            match_type: ZIP_CENTROID.to_string(),
            matched_address: None,
            county_fips: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_of_the_table_is_read() {
        assert_eq!(centroids().len(), 33_791);
    }

    #[test]
    fn looks_up_by_the_first_five_digits() {
        let (lat, lon) = ZipCentroidGeocoder::centroid("78701-1234").expect("Austin");
        assert!((lat - 30.27).abs() < 0.05 && (lon - -97.74).abs() < 0.05);
        assert_eq!(ZipCentroidGeocoder::centroid("7870"), None);
        assert_eq!(ZipCentroidGeocoder::centroid("ABCDE"), None);
        assert_eq!(ZipCentroidGeocoder::centroid("00000"), None);
    }
}
