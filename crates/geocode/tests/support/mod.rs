//! wiremock servers on 127.0.0.1 standing in for the geocoding services, and readers of what they
//! were asked. wiremock records each request as it arrives, so one it never answers (a hang longer
//! than the client's timeout) still counts. Also used by `examples/geocode_bench.rs`.
#![allow(dead_code)]

use wiremock::{MockServer, Request, ResponseTemplate};

mod servers;
pub use servers::*;

pub fn ok(body: impl Into<String>) -> ResponseTemplate {
    status(200, body)
}

pub fn status(code: u16, body: impl Into<String>) -> ResponseTemplate {
    ResponseTemplate::new(code).set_body_string(body)
}

pub async fn count_path(server: &MockServer, path: &str) -> usize {
    requests(server)
        .await
        .iter()
        .filter(|r| r.url.path() == path)
        .count()
}

pub fn header<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request.headers.get(name).and_then(|v| v.to_str().ok())
}

/// The content of a multipart/form-data part, by field name.
pub fn form_part(request: &Request, name: &str) -> Option<String> {
    let content_type = header(request, "content-type")?;
    let boundary = content_type.split("boundary=").nth(1)?.trim_matches('"');
    let body = String::from_utf8_lossy(&request.body).into_owned();
    let wanted = format!("name=\"{name}\"");
    body.split(&format!("--{boundary}")).find_map(|part| {
        let (head, content) = part.split_once("\r\n\r\n")?;
        head.contains(&wanted)
            .then(|| content.strip_suffix("\r\n").unwrap_or(content).to_string())
    })
}

/// Census `addressbatch`: the rows of the uploaded `addressFile` as (id, street, city, state, zip).
pub fn address_rows(request: &Request) -> Vec<Vec<String>> {
    form_part(request, "addressFile")
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// A `geographies/addressbatch` answer row in the recorded shape: a match in Travis County, TX.
pub fn batch_match_row(id: &str, street: &str, lon: f64, lat: f64) -> String {
    format!(
        "\"{id}\",\"{street}, AUSTIN, TX, 78701\",\"Match\",\"Exact\",\"{}, AUSTIN, TX, 78701\",\"{lon},{lat}\",\"59653655\",\"R\",\"48\",\"453\",\"001100\",\"1002\"",
        street.to_uppercase()
    )
}
