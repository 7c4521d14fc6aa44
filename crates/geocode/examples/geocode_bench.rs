//! Geocoding under a slow or failing Census, against a local wiremock server with 200 ms latency per
//! request.
//! Prints figures; asserts nothing about time.
//!
//!     cargo run --release -p leadhub-geocode --example geocode_bench
//!
//! (a) 1000 uncached addresses through the chain's `geocode_batch` (target < 2 s), then again
//!     from the cache.
//! (b) 100 single geocodes one after another while Census answers 500, and while it hangs
//!     (target < 15 s each, thanks to the circuit breaker). Production settings throughout
//!     (5 s timeout, 2 retries, breaker 5 failures / 10 s lost / 30 s cool-down).
#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use leadhub_domain::enrich::{GeocodeQuery, Geocoder};
use leadhub_geocode::{build, GeocodeSettings, MemoryGeocodeCache};
use support::{address_rows, batch_match_row, count, ok, serve, status};
use wiremock::{Request, ResponseTemplate};

const LATENCY: Duration = Duration::from_millis(200);

fn lead(i: usize) -> GeocodeQuery {
    GeocodeQuery {
        address_key: format!("{i} CONGRESS AVE|AUSTIN|TX|78701"),
        address: format!("{i} Congress Ave"),
        city: Some("Austin".into()),
        state: Some("TX".into()),
        zip_code: Some("78701".into()),
    }
}

fn census_chain(url: &str) -> anyhow::Result<Arc<dyn Geocoder>> {
    let settings = GeocodeSettings::new(url, url, leadhub_geocode::user_agent("http://bench"));
    build(
        &["census".into()],
        &settings,
        Arc::new(MemoryGeocodeCache::new()),
    )?
    .ok_or_else(|| anyhow::anyhow!("no geocoder built"))
}

async fn sequential_singles(url: &str) -> anyhow::Result<(Duration, usize)> {
    let geocoder = census_chain(url)?;
    let started = Instant::now();
    let mut failures = 0;
    for i in 0..100 {
        if geocoder.geocode(&lead(i)).await.is_err() {
            failures += 1;
        }
    }
    Ok((started.elapsed(), failures))
}

/// Census batches: every row matched, rows in reverse order, after the latency.
fn census_batch(request: &Request) -> ResponseTemplate {
    let rows: Vec<String> = address_rows(request)
        .iter()
        .rev()
        .map(|row| batch_match_row(&row[0], &row[1], -97.74, 30.27))
        .collect();
    ok(rows.join("\n")).set_delay(LATENCY)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let healthy = serve(census_batch).await;
    let geocoder = census_chain(&healthy.uri())?;
    let leads: Vec<GeocodeQuery> = (0..1000).map(lead).collect();
    let started = Instant::now();
    let answers = geocoder.geocode_batch(&leads).await;
    let took = started.elapsed();
    let found = answers.iter().filter(|a| matches!(a, Ok(Some(_)))).count();
    println!(
        "(a) batch of 1000 uncached: {:>8.3} s, {found} found, {} request(s) to Census",
        took.as_secs_f64(),
        count(&healthy).await
    );
    let started = Instant::now();
    geocoder.geocode_batch(&leads).await;
    println!(
        "    same 1000 again, cached: {:>8.3} s, {} request(s) to Census",
        started.elapsed().as_secs_f64(),
        count(&healthy).await
    );

    let failing = serve(status(500, "").set_delay(LATENCY)).await;
    let (took, failures) = sequential_singles(&failing.uri()).await?;
    println!(
        "(b) 100 singles, Census 500s: {:>8.3} s, {failures} failures, {} request(s) to Census",
        took.as_secs_f64(),
        count(&failing).await
    );

    let hanging = serve(ok("").set_delay(Duration::from_secs(3600))).await;
    let (took, failures) = sequential_singles(&hanging.uri()).await?;
    println!(
        "(b) 100 singles, Census hangs: {:>7.3} s, {failures} failures, {} request(s) to Census",
        took.as_secs_f64(),
        count(&hanging).await
    );
    Ok(())
}
