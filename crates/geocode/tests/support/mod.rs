//! A small fake HTTP/1.1 server on 127.0.0.1 for the geocoding services: it records every request
//! (before answering, so a request it never answers still counts) and answers with what the test's
//! handler says, after an optional delay. One request per connection (`Connection: close`).
//! Also used by `examples/geocode_bench.rs`.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Debug, Clone)]
pub struct FakeRequest {
    pub method: String,
    pub path: String,
    /// The raw query string, without `?`.
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl FakeRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A decoded query parameter.
    pub fn param(&self, name: &str) -> Option<String> {
        self.query.split('&').find_map(|pair| {
            let (n, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(n) == name).then(|| percent_decode(v))
        })
    }

    /// The content of a multipart/form-data part, by field name.
    pub fn form_part(&self, name: &str) -> Option<String> {
        let content_type = self.header("content-type")?;
        let boundary = content_type.split("boundary=").nth(1)?.trim_matches('"');
        let body = String::from_utf8_lossy(&self.body).into_owned();
        let wanted = format!("name=\"{name}\"");
        body.split(&format!("--{boundary}")).find_map(|part| {
            let (head, content) = part.split_once("\r\n\r\n")?;
            head.contains(&wanted)
                .then(|| content.strip_suffix("\r\n").unwrap_or(content).to_string())
        })
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[derive(Debug, Clone)]
pub struct FakeReply {
    pub status: u16,
    pub body: String,
    pub delay: Duration,
}

impl FakeReply {
    pub fn ok(body: impl Into<String>) -> Self {
        FakeReply::status(200, body)
    }

    pub fn status(status: u16, body: impl Into<String>) -> Self {
        FakeReply {
            status,
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    /// Answers only after `delay` (a hang, when longer than the client's timeout).
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

type Handler = dyn Fn(&FakeRequest) -> FakeReply + Send + Sync;

pub struct FakeServer {
    /// `http://127.0.0.1:<port>`: scheme and host, as the adapters are configured.
    pub url: String,
    requests: Arc<Mutex<Vec<FakeRequest>>>,
}

impl FakeServer {
    pub async fn start(
        handler: impl Fn(&FakeRequest) -> FakeReply + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let recorded = requests.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (handler, recorded) = (handler.clone(), recorded.clone());
                tokio::spawn(async move {
                    let _ = serve(stream, handler, recorded).await;
                });
            }
        });
        FakeServer { url, requests }
    }

    pub fn requests(&self) -> Vec<FakeRequest> {
        self.requests.lock().expect("lock").clone()
    }

    pub fn count(&self) -> usize {
        self.requests.lock().expect("lock").len()
    }

    pub fn count_path(&self, path: &str) -> usize {
        self.requests().iter().filter(|r| r.path == path).count()
    }
}

async fn serve(
    mut stream: TcpStream,
    handler: Arc<Handler>,
    recorded: Arc<Mutex<Vec<FakeRequest>>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut start = lines.next().unwrap_or("").split(' ');
    let method = start.next().unwrap_or("").to_string();
    let target = start.next().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let request = FakeRequest {
        method,
        path: path.to_string(),
        query: query.to_string(),
        headers,
        body,
    };
    recorded.lock().expect("lock").push(request.clone());
    let reply = handler(&request);
    tokio::time::sleep(reply.delay).await;
    let response = format!(
        "HTTP/1.1 {} Fake\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
        reply.status,
        reply.body.len(),
        reply.body
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

/// Census `addressbatch`: the rows of the uploaded `addressFile` as (id, street, city, state, zip).
pub fn address_rows(request: &FakeRequest) -> Vec<Vec<String>> {
    request
        .form_part("addressFile")
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
