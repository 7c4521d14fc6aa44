//! Tries a county file against the real layers, to check a configuration before deploying it:
//!
//! ```text
//! cargo run -p leadhub-appraisal --example appraise -- docs/counties.example.toml TX Travis --parcel 102345
//! cargo run -p leadhub-appraisal --example appraise -- docs/counties.example.toml TX Travis --point 30.2781 -97.7583
//! ```
//!
//! Prints the `appraisal` object (or `null`) on stdout; errors go to stderr with a non-zero exit.

use std::path::PathBuf;
use std::process::ExitCode;

use leadhub_appraisal::{from_file, DEFAULT_TIMEOUT};
use leadhub_domain::enrich::AppraisalQuery;

const USAGE: &str =
    "usage: appraise COUNTY_FILE STATE COUNTY_OR_FIPS (--parcel ID | --point LAT LON)";

fn parse_args(args: &[String]) -> Result<(PathBuf, AppraisalQuery), String> {
    let [file, state, county, mode, rest @ ..] = args else {
        return Err(USAGE.into());
    };
    let is_fips = county.len() == 5 && county.bytes().all(|b| b.is_ascii_digit());
    let mut query = AppraisalQuery {
        parcel_number: None,
        latitude: None,
        longitude: None,
        state: Some(state.clone()),
        county: (!is_fips).then(|| county.clone()),
        county_fips: is_fips.then(|| county.clone()),
    };
    match (mode.as_str(), rest) {
        ("--parcel", [id]) => query.parcel_number = Some(id.clone()),
        ("--point", [lat, lon]) => {
            query.latitude = Some(lat.parse().map_err(|_| format!("bad latitude {lat:?}"))?);
            query.longitude = Some(lon.parse().map_err(|_| format!("bad longitude {lon:?}"))?);
        }
        _ => return Err(USAGE.into()),
    }
    Ok((PathBuf::from(file), query))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (file, query) = match parse_args(&args) {
        Ok(parsed) => parsed,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let source = match from_file(&file, DEFAULT_TIMEOUT) {
        Ok(source) => source,
        Err(e) => {
            eprintln!("{e:#}");
            return ExitCode::FAILURE;
        }
    };
    match source.appraise(&query).await {
        Ok(found) => {
            let out = found.unwrap_or(serde_json::Value::Null);
            match serde_json::to_string_pretty(&out) {
                Ok(text) => println!("{text}"),
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("appraisal failed: {e}");
            ExitCode::FAILURE
        }
    }
}
