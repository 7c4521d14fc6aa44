//! A signed-in page session for benchmarks that drive the pages: sign-in form, the e-mailed
//! link, its confirmation; the session's cookies as one `Cookie` header value.
use std::collections::BTreeMap;

use leadhub_domain::mail::Message;

use crate::TestApp;

/// Session cookies for `email`, through the sign-in pages.
pub async fn session_cookies(app: &TestApp, email: &str) -> String {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut jar: BTreeMap<String, String> = BTreeMap::new();
    let cookies = |jar: &BTreeMap<String, String>| {
        jar.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let keep = |jar: &mut BTreeMap<String, String>, r: &reqwest::Response| {
        for v in r.headers().get_all("set-cookie") {
            let (pair, _) = v.to_str().unwrap().split_once(';').unwrap();
            let (k, v) = pair.split_once('=').unwrap();
            jar.insert(k.into(), v.into());
        }
    };
    let field = |body: &str, name: &str| {
        let marker = format!("name=\"{name}\" value=\"");
        let start = body.find(&marker).unwrap() + marker.len();
        body[start..start + body[start..].find('"').unwrap()].to_owned()
    };
    let r = client.get(app.url("/sign-in")).send().await.unwrap();
    keep(&mut jar, &r);
    let csrf = field(&r.text().await.unwrap(), "csrf");
    client
        .post(app.url("/sign-in"))
        .header("cookie", cookies(&jar))
        .form(&[("csrf", csrf.as_str()), ("email", email)])
        .send()
        .await
        .unwrap();
    app.mail_settled().await;
    let Message::SignIn { sign_in_url, .. } = app.mail.last_to(email).unwrap().message else {
        panic!("no sign-in e-mail");
    };
    let path = &sign_in_url[sign_in_url.find("/sign-in").unwrap()..];
    let r = client
        .get(app.url(path))
        .header("cookie", cookies(&jar))
        .send()
        .await
        .unwrap();
    let page = r.text().await.unwrap();
    let r = client
        .post(app.url("/sign-in/link"))
        .header("cookie", cookies(&jar))
        .form(&[
            ("csrf", field(&page, "csrf")),
            ("token", field(&page, "token")),
        ])
        .send()
        .await
        .unwrap();
    keep(&mut jar, &r);
    cookies(&jar)
}
