use leadhub_domain::enrich::{EnrichError, GeocodeQuery, Geocoder};

use wiremock::{Request, ResponseTemplate};

use crate::support::{
    address_rows, batch_match_row, count, count_path, form_part, ok, param, requests,
};
use crate::{census_serving, query, MATCH_JSON, NO_MATCH_JSON};

const SINGLE_PATH: &str = "/geocoder/geographies/address";
const ONE_LINE_PATH: &str = "/geocoder/geographies/onelineaddress";
const BATCH_PATH: &str = "/geocoder/geographies/addressbatch";

/// Answers single lookups with the recorded match and batches like Census would: streets with
/// "Nowhere" unmatched, with "Twin" tied, others matched at a longitude that encodes the row id;
/// rows in a shuffled order.
fn census_like(request: &Request) -> ResponseTemplate {
    if request.url.path() != BATCH_PATH {
        return ok(MATCH_JSON);
    }
    let mut rows: Vec<String> = address_rows(request)
        .iter()
        .map(|row| {
            let (id, street) = (&row[0], &row[1]);
            let input = format!("{street}, {}, {}, {}", row[2], row[3], row[4]);
            if street.contains("Nowhere") {
                format!("\"{id}\",\"{input}\",\"No_Match\"")
            } else if street.contains("Twin") {
                format!("\"{id}\",\"{input}\",\"Tie\"")
            } else {
                let n: f64 = id.parse().unwrap_or(0.0);
                batch_match_row(id, street, -97.0 - n / 1000.0, 30.27)
            }
        })
        .collect();
    // Odd ids first, then even ones backwards: "rows in any order".
    rows.sort_by_key(|row| {
        let id: usize = row
            .trim_start_matches('"')
            .split('"')
            .next()
            .unwrap_or("0")
            .parse()
            .unwrap_or(0);
        (id.is_multiple_of(2), usize::MAX - id)
    });
    ok(rows.join("\r\n") + "\r\n")
}

#[tokio::test]
async fn a_single_match_gives_coordinates_and_county_fips() {
    let (census, geocoder) = census_serving(census_like).await;

    let found = geocoder
        .geocode(&query(
            "1600 Pennsylvania Avenue NW",
            "Washington",
            "DC",
            "20500",
        ))
        .await
        .expect("no failure")
        .expect("a match");

    assert_eq!(found.county_fips.as_deref(), Some("11001"));
    assert_eq!((found.latitude, found.longitude), (38.898754, -77.03535));
    assert_eq!(found.source, "census");
    assert_eq!(found.match_type, "non_exact");
    assert_eq!(
        found.matched_address.as_deref(),
        Some("1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502")
    );
    let asked = &requests(&census).await[0];
    assert_eq!(asked.url.path(), SINGLE_PATH);
    for (name, value) in [
        ("street", "1600 Pennsylvania Avenue NW"),
        ("city", "Washington"),
        ("state", "DC"),
        ("zip", "20500"),
        ("benchmark", "Public_AR_Current"),
        ("vintage", "Current_Current"),
        ("format", "json"),
    ] {
        assert_eq!(param(asked, name).as_deref(), Some(value), "{name}");
    }
}

#[tokio::test]
async fn no_address_match_is_a_definite_no_match() {
    let (census, geocoder) = census_serving(ok(NO_MATCH_JSON)).await;

    let answer = geocoder
        .geocode(&query("79 Wistful Vista, Wistful Vista, IL", "", "", ""))
        .await;

    assert!(matches!(answer, Ok(None)), "{answer:?}");
    let asked = &requests(&census).await[0];
    assert_eq!(
        asked.url.path(),
        ONE_LINE_PATH,
        "only an address line: the one-line form"
    );
    assert_eq!(
        param(asked, "address").as_deref(),
        Some("79 Wistful Vista, Wistful Vista, IL")
    );
}

#[tokio::test]
async fn a_batch_reads_match_no_match_and_tie_rows_in_any_order() {
    let (census, geocoder) = census_serving(census_like).await;
    let queries: Vec<_> = (0..12)
        .map(|i| {
            let street = match i {
                3 | 7 => format!("{i} Nowhere Rd"),
                5 => format!("{i} Twin Oaks Dr"),
                _ => format!("{i} Congress Ave"),
            };
            query(&street, "Austin", "TX", "78701")
        })
        .collect();

    let answers = geocoder.geocode_batch(&queries).await;

    assert_eq!(answers.len(), 12);
    for (i, answer) in answers.iter().enumerate() {
        let answer = answer.as_ref().expect("no failure");
        match i {
            3 | 5 | 7 => assert!(answer.is_none(), "row {i}: {answer:?}"),
            _ => {
                let found = answer.as_ref().expect("a match");
                assert_eq!(
                    found.longitude,
                    -97.0 - i as f64 / 1000.0,
                    "row {i} in its place"
                );
                assert_eq!(found.latitude, 30.27);
                assert_eq!(found.match_type, "exact");
                assert_eq!(found.county_fips.as_deref(), Some("48453"));
                assert_eq!(found.source, "census");
            }
        }
    }
    let upload = &requests(&census).await[0];
    assert_eq!(
        (upload.method.as_str(), upload.url.path()),
        ("POST", BATCH_PATH)
    );
    assert_eq!(
        form_part(upload, "benchmark").as_deref(),
        Some("Public_AR_Current")
    );
    assert_eq!(
        form_part(upload, "vintage").as_deref(),
        Some("Current_Current")
    );
    assert_eq!(
        address_rows(upload)[3],
        ["3", "3 Nowhere Rd", "Austin", "TX", "78701"]
    );
}

/// `n` addresses on Congress Ave, Austin.
fn congress_queries(n: usize) -> Vec<GeocodeQuery> {
    (0..n)
        .map(|i| query(&format!("{i} Congress Ave"), "Austin", "TX", "78701"))
        .collect()
}

#[tokio::test]
async fn ten_or_more_addresses_are_one_upload_fewer_are_single_lookups() {
    let (census, geocoder) = census_serving(census_like).await;
    let queries = congress_queries(10);

    let answers = geocoder.geocode_batch(&queries).await;
    assert!(answers.iter().all(|a| matches!(a, Ok(Some(_)))));
    assert_eq!(
        (count_path(&census, BATCH_PATH).await, count(&census).await),
        (1, 1)
    );

    let answers = geocoder.geocode_batch(&queries[..9]).await;
    assert!(answers.iter().all(|a| matches!(a, Ok(Some(_)))));
    assert_eq!(count_path(&census, BATCH_PATH).await, 1);
    assert_eq!(count_path(&census, SINGLE_PATH).await, 9);
}

#[tokio::test]
async fn more_than_ten_thousand_addresses_are_split_into_uploads() {
    let (census, geocoder) = census_serving(census_like).await;
    let queries = congress_queries(10_001);

    let answers = geocoder.geocode_batch(&queries).await;

    assert_eq!(answers.len(), 10_001);
    assert!(answers.iter().all(|a| matches!(a, Ok(Some(_)))));
    let sizes: Vec<usize> = requests(&census)
        .await
        .iter()
        .map(|r| address_rows(r).len())
        .collect();
    assert_eq!(sizes, [10_000, 1]);
    // The last address is row 0 of the second upload and still lands in its own place.
    let last = answers[10_000]
        .as_ref()
        .expect("ok")
        .as_ref()
        .expect("match");
    assert_eq!(last.longitude, -97.0);
}

#[tokio::test]
async fn a_malformed_answer_is_a_failure_and_not_retried() {
    let (census, geocoder) = census_serving(ok("<html>Service busy</html>")).await;

    let answer = geocoder
        .geocode(&query(
            "1600 Pennsylvania Avenue NW",
            "Washington",
            "DC",
            "20500",
        ))
        .await;
    assert!(
        matches!(&answer, Err(EnrichError::Failed(m)) if m == "census: gave an answer we could not read"),
        "{answer:?}"
    );
    assert_eq!(count(&census).await, 1);

    let queries = congress_queries(10);
    let answers = geocoder.geocode_batch(&queries).await;
    assert!(answers
        .iter()
        .all(|a| matches!(a, Err(EnrichError::Failed(_)))));
    assert_eq!(count(&census).await, 2);
}
