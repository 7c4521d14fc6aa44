//! A fake ArcGIS REST server on 127.0.0.1: records each request and answers what the test's responder says.
//! Plain HTTP/1.1 over a tokio listener, one request per connection (`Connection: close`).
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The recorded shapes, copied from `shared/fixtures/arcgis` into this crate.
pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

pub fn travis() -> String {
    fixture("travis-parcel-query-response.json")
}

pub fn empty() -> String {
    fixture("empty-query-response.json")
}

pub fn arcgis_error() -> String {
    fixture("error-response.json")
}

/// A request as the fake saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub query: Vec<(String, String)>,
}

impl Seen {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub delay: Duration,
}

impl Reply {
    pub fn json(body: String) -> Reply {
        Reply {
            status: 200,
            body,
            delay: Duration::ZERO,
        }
    }

    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }

    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }
}

type Responder = Box<dyn Fn(&Seen) -> Reply + Send + Sync>;

#[derive(Clone)]
pub struct FakeArcgis {
    pub base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    responder: Arc<Mutex<Responder>>,
}

impl FakeArcgis {
    pub async fn start(responder: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> FakeArcgis {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let fake = FakeArcgis {
            base: format!("http://{addr}"),
            seen: Arc::new(Mutex::new(Vec::new())),
            responder: Arc::new(Mutex::new(Box::new(responder))),
        };
        let server = fake.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let server = server.clone();
                tokio::spawn(async move { server.serve(stream).await });
            }
        });
        fake
    }

    /// The URL of a layer on this server.
    pub fn layer(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn set_responder(&self, responder: impl Fn(&Seen) -> Reply + Send + Sync + 'static) {
        *self.responder.lock().expect("lock") = Box::new(responder);
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("lock").clone()
    }

    pub fn hits(&self) -> usize {
        self.seen.lock().expect("lock").len()
    }

    async fn serve(&self, mut stream: tokio::net::TcpStream) {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        // A GET has no body: read up to the end of the head.
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let head = String::from_utf8_lossy(&buf);
        let target = head
            .lines()
            .next()
            .and_then(|line| line.split(' ').nth(1))
            .unwrap_or("/")
            .to_string();
        let parsed = url::Url::parse(&format!("http://fake{target}")).expect("request target");
        let seen = Seen {
            path: parsed.path().to_string(),
            query: parsed
                .query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        };
        self.seen.lock().expect("lock").push(seen.clone());
        let reply = (self.responder.lock().expect("lock"))(&seen);
        if !reply.delay.is_zero() {
            tokio::time::sleep(reply.delay).await;
        }
        let response = format!(
            "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
            reply.status,
            reply.body.len(),
            reply.body
        );
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
    }
}

/// A county file with one Travis county on `layer_url`, the fixture's field names, and fast resilience settings.
pub fn travis_toml(layer_url: &str, settings: &str) -> String {
    format!(
        r#"
[settings]
retry_backoff_ms = 10
{settings}

[[county]]
source = "Travis County, TX (TCAD)"
state = "TX"
county = "Travis"
fips = "48453"
layer_url = "{layer_url}"
parcel_id_field = "PROP_ID"

[county.fields]
account_id = "PROP_ID"
owner_name = "py_owner_name"
mailing_address = "py_address"
market_value = "market_value"
appraised_value = "appraised_val"
land_value = "land_val"
improvement_value = "imprv_val"
year_built = "yr_built"
living_area_sqft = "living_area"
land_acres = "tcad_acres"
legal_description = "legal_desc"
"#
    )
}

pub fn query(
    parcel: Option<&str>,
    coords: Option<(f64, f64)>,
) -> leadhub_domain::enrich::AppraisalQuery {
    leadhub_domain::enrich::AppraisalQuery {
        parcel_number: parcel.map(str::to_string),
        latitude: coords.map(|c| c.0),
        longitude: coords.map(|c| c.1),
        state: Some("TX".into()),
        county: Some("Travis".into()),
        county_fips: None,
    }
}
