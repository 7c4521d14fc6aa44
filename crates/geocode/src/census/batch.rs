//! Census `POST /geocoder/geographies/addressbatch`: one CSV upload for many addresses.
//!
//! The upload (`addressFile`) has no header: `id,street,city,state,zip`. Our id is the row's index in
//! the chunk. The answer is CSV without header, rows in any order:
//! `id, input, Match|No_Match|Tie, Exact|Non_Exact, matched address, "lon,lat", TIGER line id, side,
//! state FIPS, county FIPS, tract, block` (the columns after the status only on a match).
//!
//! `Tie` (several equally good candidates) is answered as no match: picking one could place the lead
//! in the wrong county and so attach the wrong parcel, and a later geocoder in the chain may still
//! settle it.
use std::collections::HashMap;
use std::time::Duration;

use leadhub_domain::enrich::{GeocodeOutcome, GeocodeQuery, GeocodeResult};
use reqwest::multipart::{Form, Part};

use super::{county_fips, CensusGeocoder, BENCHMARK, CENSUS, VINTAGE};

/// Census works through a batch file row by row: give each row this long on top of the timeout.
const TIME_PER_ROW: Duration = Duration::from_millis(30);

impl CensusGeocoder {
    /// Geocodes at most `MAX_BATCH_ROWS` queries with one upload.
    pub(super) async fn batch_lookup(&self, queries: &[GeocodeQuery]) -> Vec<GeocodeOutcome> {
        let url = format!("{}/geocoder/geographies/addressbatch", self.base_url);
        let address_file = address_file(queries);
        let rows = u32::try_from(queries.len()).unwrap_or(u32::MAX);
        let timeout = self.timeout + TIME_PER_ROW.saturating_mul(rows);
        let answer = self
            .upstream
            .fetch(|client| {
                let file = Part::text(address_file.clone()).file_name("addresses.csv");
                let form = Form::new()
                    .part("addressFile", file)
                    .text("benchmark", BENCHMARK)
                    .text("vintage", VINTAGE);
                client.post(&url).multipart(form).timeout(timeout)
            })
            .await;
        match answer {
            Ok(body) => self.match_rows(queries.len(), &body),
            Err(error) => {
                // One failed upload fails every address in it alike.
                (0..queries.len()).map(|_| Err(error.clone())).collect()
            }
        }
    }

    /// Puts the answer's rows back in the order of the queries.
    fn match_rows(&self, count: usize, body: &str) -> Vec<GeocodeOutcome> {
        let mut by_id: HashMap<usize, Result<Option<GeocodeResult>, String>> = HashMap::new();
        for line in body.lines().filter(|l| !l.trim().is_empty()) {
            let fields = split_csv_line(line);
            if let Some(id) = fields
                .first()
                .and_then(|id| id.trim().parse::<usize>().ok())
            {
                by_id.insert(id, parse_row(&fields));
            }
        }
        (0..count)
            .map(|id| match by_id.remove(&id) {
                Some(row) => row.map_err(|problem| self.upstream.failed(problem)),
                None => Err(self
                    .upstream
                    .failed(format!("malformed batch answer: no row for id {id}"))),
            })
            .collect()
    }
}

/// The `addressFile` CSV. Commas, quotes and line breaks in the lead's fields become spaces: they
/// carry no meaning in an address, and this way no row depends on how Census reads quoting.
fn address_file(queries: &[GeocodeQuery]) -> String {
    fn clean(value: Option<&str>) -> String {
        value
            .unwrap_or("")
            .chars()
            .map(|c| {
                if matches!(c, ',' | '"' | '\r' | '\n') {
                    ' '
                } else {
                    c
                }
            })
            .collect::<String>()
            .trim()
            .to_string()
    }
    let mut file = String::with_capacity(queries.len() * 64);
    for (id, q) in queries.iter().enumerate() {
        let fields = [
            clean(Some(&q.address)),
            clean(q.city.as_deref()),
            clean(q.state.as_deref()),
            clean(q.zip_code.as_deref()),
        ];
        file.push_str(&format!("{id},{}\n", fields.join(",")));
    }
    file
}

/// Reads one answer row (already split into fields).
fn parse_row(fields: &[String]) -> Result<Option<GeocodeResult>, String> {
    let field = |i: usize| fields.get(i).map(|s| s.trim()).unwrap_or("");
    match field(2) {
        "No_Match" | "Tie" => Ok(None),
        "Match" => {
            let match_type = match field(3) {
                "Exact" => "exact",
                "Non_Exact" => "non_exact",
                other => return Err(format!("malformed batch row: match type {other:?}")),
            };
            let (lon, lat) = field(5)
                .split_once(',')
                .and_then(|(lon, lat)| Some((lon.trim().parse().ok()?, lat.trim().parse().ok()?)))
                .ok_or_else(|| format!("malformed batch row: coordinates {:?}", field(5)))?;
            let matched = field(4);
            Ok(Some(GeocodeResult {
                latitude: lat,
                longitude: lon,
                source: CENSUS.to_string(),
                match_type: match_type.to_string(),
                matched_address: (!matched.is_empty()).then(|| matched.to_string()),
                county_fips: county_fips(field(8), field(9)),
            }))
        }
        other => Err(format!("malformed batch row: status {other:?}")),
    }
}

/// Splits one CSV line: fields may be quoted (`"a,b"`), a doubled quote inside quotes is a quote.
fn split_csv_line(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    let mut chars = line.trim_end_matches('\r').chars().peekable();
    while let Some(c) = chars.next() {
        match (c, in_quotes) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => in_quotes = !in_quotes,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    fields.push(field);
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_quoted_fields_with_commas() {
        let line =
            r#""3","3 Gramercy Park West, New York","Match","Exact","X","-73.98658,40.738323""#;
        let fields = split_csv_line(line);
        assert_eq!(fields.len(), 6);
        assert_eq!(fields[1], "3 Gramercy Park West, New York");
        assert_eq!(fields[5], "-73.98658,40.738323");
        assert_eq!(split_csv_line(r#""a ""b""",c"#), vec![r#"a "b""#, "c"]);
    }

    #[test]
    fn reads_the_recorded_rows() {
        let body = include_str!("../../tests/fixtures/geographies-addressbatch-response.csv");
        let rows: Vec<_> = body.lines().map(split_csv_line).collect();
        let matched = parse_row(&rows[0]).expect("parses").expect("a match");
        assert_eq!(matched.match_type, "exact");
        assert_eq!(matched.county_fips.as_deref(), Some("36061"));
        assert!((matched.latitude - 40.738323).abs() < 1e-9);
        assert!((matched.longitude - -73.98658).abs() < 1e-9);
        assert_eq!(parse_row(&rows[1]), Ok(None));
        let tie = split_csv_line(r#""7","1 Main St, X, TX, ","Tie""#);
        assert_eq!(parse_row(&tie), Ok(None));
        assert!(parse_row(&split_csv_line(r#""8","?","Maybe""#)).is_err());
    }

    #[test]
    fn writes_the_recorded_request_shape() {
        let q = |address: &str, city: &str, state: &str, zip: Option<&str>| GeocodeQuery {
            address_key: String::new(),
            address: address.into(),
            city: Some(city.into()),
            state: Some(state.into()),
            zip_code: zip.map(Into::into),
        };
        let file = address_file(&[
            q("4600 Silver Hill Rd", "SUITLAND", "MD", Some("20746")),
            q("79 Wistful Vista", "Wistful Vista", "IL", None),
            q(
                "3 Gramercy Park West, Apt \"2\"",
                "New York",
                "NY",
                Some("10003"),
            ),
        ]);
        assert_eq!(
            file,
            "0,4600 Silver Hill Rd,SUITLAND,MD,20746\n\
             1,79 Wistful Vista,Wistful Vista,IL,\n\
             2,3 Gramercy Park West  Apt  2,New York,NY,10003\n"
        );
    }
}
