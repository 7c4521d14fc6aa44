//! A minimal SMTP server on 127.0.0.1 for the tests: it speaks EHLO/HELO, AUTH PLAIN, MAIL, RCPT,
//! DATA (with dot-unstuffing), RSET, NOOP and QUIT over a real TCP connection, and keeps what it
//! received.
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

#[derive(Debug, Clone, Default)]
pub struct Received {
    pub ehlo: String,
    /// The argument of `AUTH PLAIN`, base64 as sent.
    pub auth_plain: Option<String>,
    pub mail_from: String,
    pub rcpt_to: Vec<String>,
    /// The message as transmitted, dot-unstuffed, CRLF line ends.
    pub data: String,
}

pub struct SmtpSink {
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    task: JoinHandle<()>,
}

impl SmtpSink {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("local addr").port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let store = Arc::clone(&received);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(session(stream, Arc::clone(&store)));
            }
        });
        Self {
            port,
            received,
            task,
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().expect("lock").clone()
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn session(stream: TcpStream, store: Arc<Mutex<Vec<Received>>>) {
    let (reader, mut writer) = stream.into_split();
    let mut reader = BufReader::new(reader);
    let mut current = Received::default();
    let mut line = String::new();
    if writer
        .write_all(b"220 sink.test ESMTP test sink\r\n")
        .await
        .is_err()
    {
        return;
    }
    loop {
        line.clear();
        match reader.read_line(&mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let command = line.trim_end_matches(['\r', '\n']).to_string();
        let verb = command
            .split(' ')
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let argument = command
            .get(verb.len()..)
            .unwrap_or_default()
            .trim()
            .to_string();
        let reply: &[u8] = match verb.as_str() {
            "EHLO" => {
                current.ehlo = argument;
                b"250-sink.test\r\n250-AUTH PLAIN\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n"
            }
            "HELO" => {
                current.ehlo = argument;
                b"250 sink.test\r\n"
            }
            "AUTH" => {
                let mut words = argument.split(' ');
                match (words.next(), words.next()) {
                    (Some(m), Some(initial)) if m.eq_ignore_ascii_case("PLAIN") => {
                        current.auth_plain = Some(initial.to_string());
                        b"235 2.7.0 Authentication successful\r\n"
                    }
                    _ => b"504 5.5.4 Unrecognized authentication type\r\n",
                }
            }
            "MAIL" => {
                current.mail_from = argument;
                b"250 2.1.0 OK\r\n"
            }
            "RCPT" => {
                current.rcpt_to.push(argument);
                b"250 2.1.5 OK\r\n"
            }
            "DATA" => {
                if writer
                    .write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n")
                    .await
                    .is_err()
                {
                    return;
                }
                let mut data = String::new();
                loop {
                    line.clear();
                    match reader.read_line(&mut line).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    data.push_str(line.strip_prefix('.').unwrap_or(&line));
                }
                let mut done = std::mem::take(&mut current);
                done.data = data;
                // Keep the session's greeting and login for a next message on this connection.
                current.ehlo = done.ehlo.clone();
                current.auth_plain = done.auth_plain.clone();
                store.lock().expect("lock").push(done);
                b"250 2.0.0 OK queued\r\n"
            }
            "RSET" => {
                current.mail_from.clear();
                current.rcpt_to.clear();
                b"250 2.0.0 OK\r\n"
            }
            "NOOP" => b"250 2.0.0 OK\r\n",
            "QUIT" => {
                let _ = writer.write_all(b"221 2.0.0 Bye\r\n").await;
                return;
            }
            _ => b"502 5.5.2 Command not recognized\r\n",
        };
        if writer.write_all(reply).await.is_err() {
            return;
        }
    }
}
