//! What webhooks cost intake: batches of 1000 leads for a team with 3 endpoints subscribed to
//! every event, alternating with batches for a team with none, same run. The endpoints are a
//! local sink answering 204, so deliveries run beside the batches as they would in service.
use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Instant;

use serde_json::json;

use leadhub_tests::TestApp;

use super::{lead, median, quartiles, settle_log, BATCH, RUNS};

/// An HTTP sink on 127.0.0.1 answering every request 204; returns its base URL.
fn sink() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
            });
        }
    });
    url
}

async fn team(app: &TestApp, key: &str, name: &str) -> i64 {
    let (_, team) = app.post("/api/teams", key, json!({"name": name})).await;
    team["id"].as_i64().unwrap()
}

/// Medians (and quartiles) of the batch times without and with 3 endpoints, in ms.
pub async fn figure(app: &TestApp, key: &str) -> String {
    let quiet = team(app, key, "No webhooks").await;
    let hooked = team(app, key, "Three webhooks").await;
    let url = sink();
    for n in 0..3 {
        let (status, made) = app
            .post(
                &format!("/api/teams/{hooked}/webhooks"),
                key,
                json!({"url": format!("{url}/{n}"), "events": ["*"]}),
            )
            .await;
        assert!(status.is_success(), "{made}");
    }
    let mut without = Vec::new();
    let mut with = Vec::new();
    for run in 0..RUNS {
        for (team, times) in [(quiet, &mut without), (hooked, &mut with)] {
            let leads: Vec<_> = (0..BATCH).map(|i| lead(2000 + run, i)).collect();
            let body = json!({"team_id": team, "leads": leads});
            settle_log(app).await;
            let started = Instant::now();
            let (status, result) = app.post("/api/v1/submissions/batch", key, body).await;
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            assert!(status.is_success(), "{result}");
            assert_eq!(result["succeeded"], BATCH);
        }
    }
    let ((a1, a3), (b1, b3)) = (quartiles(without.clone()), quartiles(with.clone()));
    let (a, b) = (median(without), median(with));
    format!(
        "batch of {BATCH}, no endpoints median {a:.1} ms ({a1:.1}-{a3:.1}); 3 endpoints median {b:.1} ms ({b1:.1}-{b3:.1}); {:+.1}%",
        (b / a - 1.0) * 100.0
    )
}
