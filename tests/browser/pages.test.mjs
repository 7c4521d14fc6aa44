// The leadhub pages in real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core;
// no browser is downloaded), against the real `leadhub` binary with e-mail going to the outbox folder.
//
// Usage: node tests/browser/pages.test.mjs [path/to/leadhub]     (default target/debug/leadhub)
// Screenshots of every page: tests/artifacts/pages/*.png (gitignored).
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const bin = path.resolve(process.argv[2] ?? path.join(root, "target/debug/leadhub"));
const artifacts = path.join(root, "tests/artifacts/pages");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
// axe-core from npm (package.json pins it), run in every page the walk screenshots or names.
const axeSource = fs.readFileSync(path.join(here, "node_modules/axe-core/axe.min.js"), "utf8");

let passed = 0;
const started = Date.now();
function step(name) {
  passed += 1;
  console.log(`browser: ok ${String(passed).padStart(2)} ${name} (+${((Date.now() - started) / 1000).toFixed(1)}s)`);
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// A webhook receiver on loopback: every request with its headers and body. It listens before the
// server's port is chosen, so the two never get the same port (the receiver answers 204 to
// anything, /healthz included).
const hooks = [];
const receiver = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    hooks.push({ headers: req.headers, body });
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));

// ---- The real binary: SQLite in a temporary folder, no SMTP (mail lands in <data dir>/outbox). ----
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "leadhub-browser-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = { ...process.env };
for (const name of Object.keys(env)) if (name.startsWith("LEADHUB_") || name === "DATABASE_URL") delete env[name];
Object.assign(env, {
  DATABASE_URL: `sqlite://${tmp}/leadhub.db`,
  LEADHUB_DATA_DIR: tmp,
  LEADHUB_BIND: `127.0.0.1:${port}`,
  LEADHUB_PUBLIC_URL: base,
  LEADHUB_GEOCODER: "none",
  LEADHUB_RATE_LIMIT_PER_IP_MINUTE: "0", // one client makes every request of the walk-through
  // The walk-through resends an invite and signs people in again within seconds; the per-address
  // mail quota (tests/api/mail_quota.rs) would rightly refuse that.
  LEADHUB_MAIL_PER_ADDRESS_MINUTE: "0",
  LEADHUB_MAIL_PER_ADDRESS_HOUR: "0",
  // A tile server that is not there (network off): the lead map must still log no error.
  LEADHUB_MAP_TILES: "http://127.0.0.1:9/{z}/{x}/{y}.png",
  // The webhook receiver below listens on plain HTTP on loopback.
  LEADHUB_WEBHOOK_ALLOW_HTTP: "1",
  LEADHUB_WEBHOOK_ALLOW_PRIVATE: "1",
  RUST_LOG: "warn",
});

// A long URL without a break opportunity, as CRMs hand out (a token in the query): it must wrap at 320 px.
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hooks/crm?token=Zx81KqP3vLm0Tn7RwB4yHc6FjD2sGa9E`;

/** The Standard Webhooks signature of a received request, checked with `secret` ("whsec_..."). */
function signedWith(hook, secret) {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const { "webhook-id": id, "webhook-timestamp": ts, "webhook-signature": sig } = hook.headers;
  const expected = crypto.createHmac("sha256", key).update(`${id}.${ts}.${hook.body}`).digest("base64");
  return sig.split(" ").includes(`v1,${expected}`);
}
const outbox = path.join(tmp, "outbox");
if (!fs.existsSync(bin)) throw new Error(`no leadhub binary at ${bin} (cargo build -p leadhub-web)`);
execFileSync(bin, ["user", "add", "--email", "owner@example.com", "--first-name", "Olivia", "--last-name", "Owner"], {
  env,
  stdio: ["ignore", "ignore", "inherit"],
});
const serverLog = fs.openSync(path.join(tmp, "server.log"), "w");
const server = spawn(bin, ["serve"], { env, stdio: ["ignore", serverLog, serverLog] });
let browser;

async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  receiver.close();
  server.kill("SIGTERM");
}

async function waitForServer() {
  for (let i = 0; i < 150; i++) {
    if (server.exitCode !== null) throw new Error("leadhub exited before /healthz answered");
    try {
      // 200, not any 2xx: the webhook receiver answers 204 to whatever reaches it.
      if ((await fetch(`${base}/healthz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("/healthz did not answer within 30 s");
}

// ---- The outbox: each e-mail is an .eml file; its body is quoted-printable. ----
function decodeQuotedPrintable(text) {
  return text
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
}

/** The link in the newest e-mail of `kind` ("sign-in" or "invite") to `to`, waiting for it to arrive. */
async function mailedLink(kind, to, after = 0) {
  const pattern = kind === "sign-in"
    ? /https?:\/\/[^\s"<>]+\/sign-in\?token=[A-Za-z0-9_-]+(?:&(?:amp;)?next=[A-Za-z0-9%._~+-]+)?/
    : /https?:\/\/[^\s"<>]+\/invite\/[A-Za-z0-9_-]+/;
  for (let i = 0; i < 100; i++) {
    const files = fs.existsSync(outbox)
      ? fs.readdirSync(outbox).filter((f) => f.endsWith(`-${kind}.eml`)).sort()
      : [];
    for (const file of files.slice(after).reverse()) {
      const eml = decodeQuotedPrintable(fs.readFileSync(path.join(outbox, file), "utf8"));
      if (!new RegExp(`^To: .*${to.replace(".", "\\.")}`, "mi").test(eml)) continue;
      const match = eml.match(pattern);
      if (match) return { link: match[0].replace("&amp;", "&"), count: files.length };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${kind} e-mail to ${to} in ${outbox}`);
}

function mailCount(kind) {
  return fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith(`-${kind}.eml`)).length : 0;
}

/** Runs axe-core in the page as it is now and fails on any violation (WCAG 2.2 A/AA and best practices). */
let axeRuns = 0;
async function accessible(page, name) {
  // Injected over the DevTools protocol, which the pages' CSP (script-src 'self') does not govern.
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n      ` +
      v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}: ${n.failureSummary.replace(/\s+/g, " ")}`).join("\n      "));
  });
  axeRuns += 1;
  assert.deepEqual(violations, [], `axe-core on ${name} (${page.url()}):\n  ${violations.join("\n  ")}`);
}

async function shot(page, name) {
  await accessible(page, name);
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** RFC 4180 rows: quoted fields may hold commas, quotes ("") and line breaks. */
function parseCsv(text) {
  const rows = [];
  let row = [], field = "", quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { row.push(field); field = ""; }
    else if (c === "\n") { row.push(field.replace(/\r$/, "")); rows.push(row); row = []; field = ""; }
    else field += c;
  }
  if (field !== "" || row.length) { row.push(field); rows.push(row); }
  return rows;
}

// ---- Dashboard and business directory (issue 17, items 5 to 7): one block, called once below. ----
/** The dashboard after the lead steps (three leads, one merge), then /businesses with its charts, at desktop and phone width. */
async function dashboardAndBusinesses(page, apiKey, teamId) {
  await page.goto(`${base}/`);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  assert.equal(await page.locator("#lead-total").textContent(), "3");
  assert.equal(await page.locator("#duplicate-share").textContent(), "25.0%", "one of four submissions merged");
  assert.ok(await page.locator("#chart-per-day svg").isVisible(), "the leads-per-day chart is drawn");
  await page.locator("#chart-by-source summary").click();
  assert.equal(await page.locator("#chart-by-source tbody tr").count(), 2, "permits and referral");
  assert.equal(await page.locator('nav[aria-label="Main"] a[aria-current="page"]').textContent(), "Dashboard");
  await shot(page, "29-dashboard");
  step("dashboard: lead count, duplicate share, leads-per-day chart, a chart's numbers as a table");

  const r = await fetch(`${base}/api/v1/lead-sources/import`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ team_id: teamId, businesses: [
      { name: "Joe's Plumbing LLC", city: "Austin", state: "TX", phone: "512 555 0101" },
      { name: "Cool Air HVAC", city: "Dallas", state: "TX" },
      { name: "Sunny Solar Installers", city: "Tulsa", state: "OK", website: "https://sunny.example" },
    ] }),
  });
  assert.equal(r.status, 200);
  await page.getByRole("link", { name: "Businesses" }).click();
  await page.waitForURL(`${base}/businesses`);
  await page.locator("#business-count").getByText("3 businesses").waitFor();
  assert.ok(await page.locator("#chart-by-industry svg").isVisible(), "the industry chart is drawn");
  assert.equal(await page.locator("#chart-by-state svg rect").count(), 2, "TX and OK");
  assert.ok(await page.getByRole("link", { name: "Import CSV or Excel" }).isVisible());
  await page.selectOption("#f-relationship", "prospect");
  await page.fill("#f-state", "TX");
  await page.getByRole("button", { name: "Apply", exact: true }).click();
  await page.waitForURL(/\/businesses\?relationship_type=prospect&.*state=TX/);
  await page.locator("#business-count").getByText("2 businesses match these filters").waitFor();
  await page.locator("#chart-by-state summary").click();
  assert.equal(await page.locator("#chart-by-state tbody td.count").textContent(), "2");
  await shot(page, "30-businesses");
  step("/businesses with two filters in the URL, charts drawn and their numbers");

  await page.setViewportSize({ width: 390, height: 844 });
  for (const [where, name] of [["/", "31-dashboard-phone"], ["/businesses", "32-businesses-phone"]]) {
    await page.goto(`${base}${where}`);
    assert.ok(await page.locator("svg.chart-svg").first().isVisible(), `${where}: a chart on a phone`);
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(sideways <= 1, `${where} scrolls sideways on a phone by ${sideways}px`);
    await shot(page, name);
  }
  await page.setViewportSize({ width: 1100, height: 800 });
  step("dashboard and /businesses at phone width: charts shown, no sideways scrolling");
}
// ---- end of the dashboard and business directory block ----

const problems = [];
function watch(page, who) {
  page.setDefaultTimeout(15000);
  page.on("pageerror", (e) => problems.push(`${who}: page error: ${e.message}`));
  page.on("console", (m) => {
    // A 4xx page is expected in some steps; anything else (a CSP violation, a script error) is a problem.
    if (m.type() === "error" && !/status of 4\d\d/.test(m.text())) problems.push(`${who}: console: ${m.text()}`);
  });
  return page;
}

async function sessionCookie(context) {
  return (await context.cookies(base)).find((c) => c.name === "leadhub_session");
}

try {
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  await waitForServer();
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
  // Two people, two separate browser contexts (separate cookie jars and storage).
  const owner = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const invitee = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const a = watch(await owner.newPage(), "owner");
  const b = watch(await invitee.newPage(), "invitee");

  // Signed out: any page leads to the sign-in form, which keeps the page asked for in `next`.
  await a.goto(`${base}/leads/1897`);
  assert.equal(a.url(), `${base}/sign-in?next=%2Fleads%2F1897`);
  assert.equal(await a.inputValue('form[action="/sign-in"] input[name="next"]'), "/leads/1897");
  await shot(a, "01-sign-in");
  step("signed out: /leads/1897 redirects to /sign-in?next=%2Fleads%2F1897");

  // Sign in through the link in the outbox e-mail.
  await a.fill("#email", "owner@example.com");
  await a.click("text=Send me a sign-in link");
  await a.getByRole("heading", { name: "Check your e-mail" }).waitFor();
  await shot(a, "02-check-your-email");
  const { link: signInLink } = await mailedLink("sign-in", "owner@example.com");
  assert.ok(signInLink.endsWith("&next=%2Fleads%2F1897"), `the e-mailed link carries next: ${signInLink}`);
  await a.goto(signInLink);
  await a.getByRole("heading", { name: "Continue signing in" }).waitFor();
  assert.equal(await sessionCookie(owner), undefined, "opening the link does not sign in (nor spend it)");
  await shot(a, "03-sign-in-link");
  await a.getByRole("button", { name: "Sign in" }).click();
  await a.waitForURL(`${base}/leads/1897`);
  await a.getByRole("heading", { name: "Not found" }).waitFor(); // no lead 1897 yet: the page asked for, all the same
  step("signed in through the e-mailed link, back on the page asked for (/leads/1897)");
  await a.goto(`${base}/teams`);
  await a.getByText("You are not in any team yet").waitFor();

  // The first Tab stop of a page is "Skip to content", which moves the focus to <main>.
  await a.keyboard.press("Tab");
  assert.equal(await a.evaluate(() => document.activeElement.textContent), "Skip to content");
  const ring = await a.evaluate(() => getComputedStyle(document.activeElement).outlineColor);
  assert.equal(ring, "rgb(31, 95, 191)", "the focus ring is --accent (6.2:1 on white)");
  await shot(a, "03a-skip-link-focused");
  await a.keyboard.press("Enter");
  assert.equal(await a.evaluate(() => document.activeElement.id), "main");
  assert.equal(new URL(a.url()).hash, "#main");
  step("'Skip to content' is the first Tab stop; the focus ring is --accent (6.2:1 on white, WCAG asks 3:1)");

  const cookie = await sessionCookie(owner);
  assert.ok(cookie && cookie.httpOnly && cookie.sameSite === "Lax" && cookie.path === "/", JSON.stringify(cookie));
  await shot(a, "04-teams-empty");
  step("sign-in through the e-mailed link; HttpOnly SameSite=Lax session cookie");

  // A team.
  await a.fill("#team-name", "Austin Roofing");
  await a.fill("#team-description", "Leads for the roofing crew");
  await a.click("text=Create team");
  await a.waitForURL(/\/teams\/\d+\?done=created$/);
  const teamUrl = a.url().replace(/\?.*$/, "");
  await a.getByText("Team created.").waitFor();
  await shot(a, "05-team-created");
  await a.goto(`${base}/teams`);
  await a.getByText("1 member", { exact: false }).first().waitFor();
  await shot(a, "06-teams-list");
  step("team created; listed with its counts");

  // An API key, shown once, used against the API, then revoked.
  await a.goto(`${base}/api-keys`);
  await a.getByText("You have no API keys yet").waitFor();
  await shot(a, "07-api-keys-empty");
  await a.fill("#key-name", "CI key");
  await a.click("text=Create key");
  const key = await a.inputValue("#new-key");
  assert.match(key, /^lhk_[A-Za-z0-9_-]{40,}$/);
  assert.ok(await a.locator("button[data-copy]").isVisible(), "the copy button appears with JavaScript");
  await shot(a, "08-api-key-created");
  let res = await fetch(`${base}/api/keys`, { headers: { Authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200);
  const keys = await res.json();
  assert.ok(keys.some((k) => k.name === "CI key" && k.prefix === key.slice(0, 12)), JSON.stringify(keys));
  await a.goto(`${base}/api-keys`);
  const keyRow = a.locator("tr", { hasText: "CI key" });
  await keyRow.getByText("active").waitFor();
  const prefix = keyRow.locator("code.key-prefix");
  assert.equal(await prefix.textContent(), `${key.slice(0, 12)}…`);
  assert.equal(await prefix.evaluate((el) => el.getClientRects().length), 1, "the key prefix is not broken over lines");
  await shot(a, "09-api-keys-list");
  await keyRow.getByRole("link", { name: "Revoke…" }).click();
  await a.getByRole("heading", { name: /Revoke “CI key”/ }).waitFor();
  await shot(a, "10-api-key-revoke-confirm");
  await a.getByRole("button", { name: "Revoke key" }).click();
  await a.getByText("API key revoked.").waitFor();
  res = await fetch(`${base}/api/keys`, { headers: { Authorization: `Bearer ${key}` } });
  assert.equal(res.status, 401);
  step("API key created, shown once, used on GET /api/keys (200), revoked after confirmation (then 401)");

  // Invite, resend (replaces the first link), accept in the second context.
  await a.goto(teamUrl);
  await a.fill("#invite-email", "sam@example.com");
  await a.selectOption("#invite-role", "member");
  await a.click("text=Send invite");
  await a.getByText("Invite sent.").waitFor();
  const invites = a.locator('tr[data-invite="sam@example.com"]');
  await invites.waitFor();
  const first = await mailedLink("invite", "sam@example.com");
  await shot(a, "11-team-invite-pending");
  await invites.getByRole("button", { name: "Resend" }).click();
  await a.getByText("A new invite was sent").waitFor();
  assert.equal(await a.locator('tr[data-invite="sam@example.com"]').count(), 1, "the resent invite replaces the old one");
  const second = await mailedLink("invite", "sam@example.com", first.count);
  assert.notEqual(second.link, first.link);
  await b.goto(first.link);
  await b.getByRole("heading", { name: "This link no longer works" }).waitFor();
  await shot(b, "12-invite-replaced");
  await b.goto(second.link);
  await b.getByRole("heading", { name: "Join “Austin Roofing”" }).waitFor();
  await b.getByText("Olivia Owner").waitFor();
  await shot(b, "13-invite");
  await b.reload();
  await b.getByRole("heading", { name: "Join “Austin Roofing”" }).waitFor();
  await b.fill("#first-name", "Sam");
  await b.fill("#last-name", "Sample");
  await b.click("text=Accept and join");
  await b.waitForURL(/\/teams\/\d+\?done=joined$/);
  await b.getByText("Welcome! You joined the team.").waitFor();
  assert.ok(await sessionCookie(invitee), "accepting signs the invitee in");
  assert.equal(await b.locator("#invite-email").count(), 0, "a member sees no invite form");
  assert.equal(await b.getByRole("button", { name: "Change role" }).count(), 0, "a member changes no roles");
  await shot(b, "14-team-as-member");
  step("invite sent, resent (old link 410), opened twice and accepted in a second browser context");

  // Change the new member's role, then remove them.
  await a.goto(teamUrl);
  const samRow = a.locator('tr[data-member="sam@example.com"]');
  await samRow.locator("select").selectOption("admin");
  await samRow.getByRole("button", { name: "Change role" }).click();
  await a.getByText("Role changed.").waitFor();
  assert.equal(await a.locator('tr[data-member="sam@example.com"] select').inputValue(), "admin");
  await shot(a, "15-role-changed");
  await b.goto(teamUrl);
  await b.locator("#invite-email").waitFor(); // an admin may invite
  assert.equal(await b.getByRole("link", { name: "Deactivate…" }).count(), 0, "only the owner deactivates");
  step("role changed to admin; the admin now sees the invite form but not deactivation");

  await a.locator('tr[data-member="sam@example.com"]').getByRole("link", { name: "Remove…" }).click();
  await a.getByRole("heading", { name: /Remove Sam Sample/ }).waitFor();
  await shot(a, "16-member-remove-confirm");
  await a.getByRole("button", { name: "Remove member" }).click();
  await a.getByText("Member removed.").waitFor();
  assert.equal(await a.locator('tr[data-member="sam@example.com"]').count(), 0);
  await shot(a, "17-member-removed");
  const gone = await b.goto(teamUrl);
  assert.equal(gone.status(), 404);
  await shot(b, "18-removed-member-sees-404");
  step("member removed after confirmation; their page is now a 404");

  // A webhook endpoint: added from the team page, its secret shown once, a test event sent and received signed.
  await a.goto(teamUrl);
  await a.getByText("No webhook endpoints yet.").waitFor();
  await a.fill("#webhook-url", receiverUrl);
  await a.fill("#webhook-description", "CRM");
  await a.check('input[name="lead.created"]');
  await a.click("text=Add endpoint");
  await a.getByRole("heading", { name: "Webhook endpoint added" }).waitFor();
  const secret = await a.inputValue("#webhook-secret");
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{40,}=*$/);
  await shot(a, "18a-webhook-created");
  await a.getByRole("link", { name: "Done" }).click();
  const hookCard = a.locator(`div[data-webhook="${receiverUrl}"]`);
  await hookCard.waitFor();
  assert.ok(!(await a.content()).includes(secret), "the secret is shown once");
  await hookCard.getByRole("button", { name: "Send test event" }).click();
  await a.getByText("A test event was queued for the endpoint.").waitFor();
  for (let i = 0; hooks.length === 0; i++) {
    assert.ok(i < 100, "the test event never arrived");
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(JSON.parse(hooks[0].body).type, "webhook.test");
  assert.ok(signedWith(hooks[0], secret), JSON.stringify(hooks[0].headers));
  await a.reload();
  await a.locator(`div[data-webhook="${receiverUrl}"] .delivery-delivered`).waitFor();
  await shot(a, "18b-webhook-delivered");
  step("webhook endpoint added from the team page, secret shown once, test event received and its signature verified");

  // The endpoint disabled and enabled again, given a new secret (shown once), then deleted after a confirmation.
  await hookCard.getByRole("button", { name: "Disable" }).click();
  await a.getByText("Endpoint disabled").waitFor();
  await hookCard.locator(".badge", { hasText: "disabled" }).waitFor();
  await shot(a, "18c-webhook-disabled");
  await hookCard.getByRole("button", { name: "Enable" }).click();
  await a.getByText("Endpoint enabled.").waitFor();
  assert.equal(await hookCard.locator(".badge", { hasText: "disabled" }).count(), 0);
  await hookCard.getByRole("button", { name: "New secret" }).click();
  await a.getByRole("heading", { name: "New signing secret" }).waitFor();
  const newSecret = await a.inputValue("#webhook-secret");
  assert.match(newSecret, /^whsec_[A-Za-z0-9+/]{40,}=*$/);
  assert.notEqual(newSecret, secret);
  await shot(a, "18d-webhook-new-secret");
  await a.getByRole("link", { name: "Done" }).click();
  await hookCard.waitFor();
  assert.ok(!(await a.content()).includes(newSecret), "the new secret is shown once");
  const before = hooks.length;
  await hookCard.getByRole("button", { name: "Send test event" }).click();
  for (let i = 0; hooks.length === before; i++) {
    assert.ok(i < 100, "the test event after the new secret never arrived");
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(signedWith(hooks[before], newSecret), "signed with the new secret");
  assert.ok(signedWith(hooks[before], secret), "and, for the overlap, with the old one");
  // The team page with an endpoint and its deliveries fits 320 px (long URLs and ids wrap).
  await a.setViewportSize({ width: 320, height: 640 });
  await a.reload();
  const wide = await a.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wide <= 1, `the team page with a webhook scrolls sideways at 320 px by ${wide}px`);
  await shot(a, "18f-team-webhook-320");
  await a.setViewportSize({ width: 1100, height: 800 });
  const hookPath = await hookCard.getByRole("link", { name: "Delete…" }).getAttribute("href");
  const forgedDelete = await a.request.post(`${base}${hookPath}`, { form: { csrf: "0".repeat(64) }, maxRedirects: 0 });
  assert.equal(forgedDelete.status(), 403, "a delete without the session's CSRF token is refused");
  await hookCard.getByRole("link", { name: "Delete…" }).click();
  await a.getByRole("heading", { name: "Delete this webhook endpoint?" }).waitFor();
  await shot(a, "18e-webhook-delete-confirm");
  await a.getByRole("button", { name: "Delete endpoint" }).click();
  await a.getByText("Webhook endpoint deleted.").waitFor();
  await a.getByText("No webhook endpoints yet.").waitFor();
  step("webhook endpoint disabled, enabled, given a new secret (both sign during the overlap), deleted after confirmation; forged delete 403");

  // A forged POST without its CSRF token is refused: from the page (token stripped) and as a bare request.
  await a.goto(`${base}/teams`);
  await a.evaluate(() => document.querySelector('form[action="/teams"] input[name="csrf"]').remove());
  await a.fill("#team-name", "Forged team");
  await a.click("text=Create team");
  await a.getByRole("heading", { name: "This form could not be accepted" }).waitFor();
  await shot(a, "19-csrf-refused");
  const forged = await a.request.post(`${base}/teams`, { form: { name: "Forged team" }, maxRedirects: 0 });
  assert.equal(forged.status(), 403);
  const forgedInvite = await a.request.post(`${teamUrl}/invites`, { form: { email: "x@example.com", role: "admin", csrf: "0".repeat(64) }, maxRedirects: 0 });
  assert.equal(forgedInvite.status(), 403);
  await a.goto(`${base}/teams`);
  assert.equal(await a.getByText("Forged team").count(), 0);
  step("forged form POSTs without a valid CSRF token refused with 403, nothing created");

  // Leads: two submissions of one property through the API (a merge), then the pages.
  const apiKey = execFileSync(bin, ["key", "create", "--email", "owner@example.com", "--name", "browser"], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  }).toString().trim();
  const teamId = Number(teamUrl.split("/").pop());
  async function submit(lead) {
    const r = await fetch(`${base}/api/v1/submissions/single`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify(lead),
    });
    assert.equal(r.status, 200);
    return r.json();
  }
  const lamar = { address: "12 North Lamar Boulevard", city: "Austin", state: "TX", zip_code: "78701", team_id: teamId,
    first_name: "Rita", last_name: "Rivera", source: "permits", permit_status: "issued", latitude: 30.2711, longitude: -97.7537 };
  const created = await submit(lamar);
  const merged = await submit({ address: "12 N Lamar Blvd", city: "Austin", state: "TX", zip_code: "78701", team_id: teamId,
    primary_phone: "512 555 0199", source: "permits" });
  assert.equal(merged.result_lead_id, created.result_lead_id);
  assert.equal(merged.result_action, "updated");
  await submit({ address: "40 Lamar Street", city: "Dallas", state: "TX", source: "referral", team_id: teamId });
  await submit({ address: "7 Formula Way", city: "Austin", state: "TX", first_name: "=SUM(1,2)", source: "referral", team_id: teamId });

  await a.goto(`${base}/leads`);
  await a.locator("#lead-count").getByText("3 leads").waitFor();
  await a.fill("#f-q", "lamar");
  await a.fill("#f-city", "Austin");
  await a.fill("#f-source", "permits");
  await a.getByRole("button", { name: "Apply", exact: true }).click();
  await a.waitForURL(/\/leads\?q=lamar&.*city=Austin.*source=permits/);
  await a.locator("#lead-count").getByText("1 lead matches these filters").waitFor();
  await shot(a, "25-leads-filtered");
  step("/leads with a search and two filters kept in the URL");

  await a.getByRole("link", { name: "12 N LAMAR BLVD" }).click();
  await a.waitForURL(new RegExp(`/leads/${created.result_lead_id}\\?in=q%3Dlamar.*&at=0$`)); // its place in the list rides along
  await a.locator("#address-standardized").getByText("12 N LAMAR BLVD").waitFor();
  const history = a.locator(".history-item");
  assert.equal(await history.count(), 2);
  assert.equal(await history.nth(0).locator(".action").textContent(), "updated");
  assert.equal(await history.nth(1).locator(".action").textContent(), "created");
  await history.nth(0).getByText("Submitted JSON").click();
  const raw = await history.nth(0).locator("pre.raw").textContent();
  assert.equal(JSON.parse(raw).primary_phone, "512 555 0199", "the verbatim submission");
  assert.ok(await a.getByRole("link", { name: "Open in OpenStreetMap" }).isVisible());
  await shot(a, "26-lead-detail");
  step("a lead's detail: standardised address and its submission history after a merge");

  // Export CSV for the current filter, read back.
  await a.goBack();
  const [download] = await Promise.all([a.waitForEvent("download"), a.click("#export-csv")]);
  const csvText = fs.readFileSync(await download.path(), "utf8");
  assert.ok(csvText.startsWith("\ufeff"), "a byte-order mark, so that Excel reads UTF-8");
  const csvRows = parseCsv(csvText.slice(1));
  assert.deepEqual(csvRows[0].slice(0, 4), ["id", "team_id", "address", "city"]);
  assert.equal(csvRows.length, 2, JSON.stringify(csvRows));
  const col = (name) => csvRows[0].indexOf(name);
  assert.equal(csvRows[1][col("address")], "12 N Lamar Blvd");
  assert.equal(csvRows[1][col("primary_phone")], "+15125550199", "E.164 phones are written plain: a phone number is no formula");
  const all = await a.request.get(`${base}/leads/export`);
  assert.equal(all.headers()["content-type"], "text/csv; charset=utf-8");
  const allRows = parseCsv((await all.text()).replace(/^\ufeff/, ""));
  assert.equal(allRows.length, 4);
  assert.ok(allRows.some((r) => r[col("first_name")] === "'=SUM(1,2)"), "formula cells are prefixed");
  step("Export CSV of the current filter downloaded and read back; formula cells prefixed");

  const [workbook] = await Promise.all([a.waitForEvent("download"), a.click("#export-xlsx")]);
  assert.equal(workbook.suggestedFilename(), "leads.xlsx");
  const workbookBytes = fs.readFileSync(await workbook.path());
  assert.equal(workbookBytes.subarray(0, 4).toString("latin1"), "PK\x03\x04", "a zip archive, as an .xlsx is");
  step("Export for Excel of the current filter downloaded as leads.xlsx");

  await a.setViewportSize({ width: 390, height: 844 });
  for (const [where, name] of [["/leads?q=lamar", "27-leads-phone"], [`/leads/${created.result_lead_id}`, "28-lead-detail-phone"]]) {
    await a.goto(`${base}${where}`);
    const sideways = await a.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(sideways <= 1, `${where} scrolls sideways on a phone by ${sideways}px`);
    await shot(a, name);
  }
  await a.setViewportSize({ width: 1100, height: 800 });
  step("lead pages at phone width: no sideways scrolling");

  await dashboardAndBusinesses(a, apiKey, teamId);
  await uploadsAndMap(a, teamId, created.result_lead_id);
  await workingLeads(a, teamUrl, teamId, submit);

  // At desktop widths the members table fits its scrolling box: no Remove… button cut off.
  for (const width of [1024, 1200, 1440]) {
    await a.setViewportSize({ width, height: 800 });
    await a.goto(teamUrl);
    const [table, box] = await a.locator("table.members").evaluate((t) => [t.scrollWidth, t.parentElement.clientWidth]);
    assert.ok(table <= box, `the members table (${table}px) overflows its box (${box}px) at ${width} px`);
  }
  await shot(a, "19a-team-1440");
  step("team page at 1024, 1200 and 1440 px: the members table fits its box");

  // Readable on a phone.
  await a.setViewportSize({ width: 390, height: 844 });
  await a.goto(teamUrl);
  const overflow = await a.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the team page scrolls sideways on a phone by ${overflow}px`);
  await shot(a, "20-team-phone");
  await a.goto(`${base}/api-keys`);
  assert.equal(await a.locator("code.key-prefix").first().evaluate((el) => el.getClientRects().length), 1);
  await shot(a, "21-api-keys-phone");
  await a.setViewportSize({ width: 320, height: 640 });
  for (const [where, name] of [[teamUrl.slice(base.length), "21a-team-320"], ["/teams", "21b-teams-320"], ["/api-keys", "21c-api-keys-320"]]) {
    await a.goto(`${base}${where}`);
    const sideways = await a.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(sideways <= 1, `${where} scrolls sideways at 320 px by ${sideways}px`);
    await shot(a, name);
  }
  await a.setViewportSize({ width: 1100, height: 800 });
  step("phone-sized viewports (390 and 320 px): no sideways scrolling; the key prefix stays on one line");

  // The site icon answers (cached), and /docs (Swagger UI) passes axe-core too.
  const icon = await a.request.get(`${base}/favicon.ico`);
  assert.equal(icon.status(), 200);
  assert.equal(icon.headers()["content-type"], "image/vnd.microsoft.icon");
  assert.match(icon.headers()["cache-control"], /max-age=\d+/);
  assert.equal(await a.getAttribute('link[rel="icon"]', "href"), "/favicon.ico");
  await a.goto(`${base}/docs`);
  await a.locator(".opblock").first().waitFor();
  await a.locator(".opblock-summary").first().click();
  await a.locator(".opblock-body").first().waitFor();
  await shot(a, "21e-docs");
  step("/favicon.ico answers, cached; /docs has no axe-core violations");

  // Deactivate (owner only), then sign out.
  await a.goto(teamUrl);
  await a.getByRole("link", { name: "Deactivate…" }).click();
  await a.getByRole("button", { name: "Deactivate team" }).click();
  await a.getByText("Team deactivated.").waitFor();
  assert.equal(await a.locator("#invite-email").count(), 0, "an inactive team takes no invites");
  await shot(a, "22-team-deactivated");
  await a.getByRole("button", { name: "Sign out" }).click();
  await a.waitForURL(`${base}/sign-in?done=signed-out`);
  await a.getByText("You are signed out.").waitFor();
  assert.equal(await sessionCookie(owner), undefined);
  await a.goto(`${base}/api-keys`);
  assert.equal(new URL(a.url()).pathname, "/sign-in");
  await shot(a, "23-signed-out");
  step("team deactivated after confirmation; signed out (cookies gone, pages redirect)");

  // A spent sign-in link: a clear page with a way to get a new one.
  await a.goto(signInLink);
  await a.getByRole("button", { name: "Sign in" }).click();
  await a.getByText("This sign-in link was already used or has expired").waitFor();
  assert.ok(await a.locator("#email").isVisible());
  await shot(a, "24-sign-in-link-used");
  step("a spent sign-in link explains itself and offers a new one");

  // Without a `next`, sign-in lands on the dashboard; a `next` that could leave the origin is dropped.
  for (const evil of ["//evil.example/x", "/\\evil.example", "https://evil.example/", "javascript:alert(1)"]) {
    await a.goto(`${base}/sign-in?next=${encodeURIComponent(evil)}`);
    assert.equal(await a.locator('input[name="next"]').count(), 0, `next=${evil} is not kept`);
  }
  await a.goto(`${base}/sign-in`);
  await a.evaluate(() => {
    const next = Object.assign(document.createElement("input"), { type: "hidden", name: "next", value: "//evil.example/x" });
    document.querySelector('form[action="/sign-in"]').append(next);
  });
  const sent = mailCount("sign-in");
  await a.fill("#email", "owner@example.com");
  await a.click("text=Send me a sign-in link");
  await a.getByRole("heading", { name: "Check your e-mail" }).waitFor();
  const { link: plainLink } = await mailedLink("sign-in", "owner@example.com", sent);
  assert.ok(!plainLink.includes("next="), `an unsafe next stays out of the link: ${plainLink}`);
  await a.goto(plainLink);
  await a.evaluate(() => {
    const next = Object.assign(document.createElement("input"), { type: "hidden", name: "next", value: "/\\evil.example" });
    document.querySelector('form[action="/sign-in/link"]').append(next);
  });
  await a.getByRole("button", { name: "Sign in" }).click();
  await a.waitForURL(`${base}/`);
  await a.getByRole("heading", { name: "Dashboard" }).waitFor();
  step("sign-in without a safe next lands on the dashboard; //, /\\ and https:// next values are dropped");

  assert.deepEqual(problems, [], "no script errors or CSP violations in the pages");
  step(`no console errors or CSP violations; axe-core ran ${axeRuns} times, 0 violations`);
  console.log(`browser: ${passed} checks passed; screenshots in ${path.relative(root, artifacts)}/`);
} catch (e) {
  console.error(`browser: FAIL: ${e.stack ?? e}`);
  try {
    fs.copyFileSync(path.join(tmp, "server.log"), path.join(artifacts, "server.log"));
    console.error(`browser: server log copied to ${path.relative(root, artifacts)}/server.log`);
  } catch {
    // no log to copy
  }
  process.exitCode = 1;
} finally {
  await cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
}

// Sends a CSV file from the open upload form into the team, and waits for the status page's summary (the page
// updates itself until the import is done).
async function uploadCsv(page, teamId, name, text) {
  await page.selectOption("#upload-team", String(teamId));
  await page.setInputFiles("#upload-file", { name, mimeType: "text/csv", buffer: Buffer.from(text) });
  await page.getByRole("button", { name: "Upload and import" }).click();
  await page.waitForURL(/\/uploads\/\d+$/);
  await page.locator("#upload-summary").waitFor({ timeout: 30000 });
}

// ---- CSV upload from /leads and the lead map (uploads helper's block) ----
async function uploadsAndMap(page, teamId, mappedLeadId) {
  // The map of a lead with coordinates, its tile server unreachable: drawn, and no console error.
  await page.goto(`${base}/leads/${mappedLeadId}`);
  await page.locator("#lead-map").waitFor();
  assert.ok((await page.locator("#lead-map image").count()) >= 2, "the map has its tiles");
  await page.waitForLoadState("networkidle");
  await shot(page, "40-lead-map-offline");
  step("lead map drawn with LEADHUB_MAP_TILES unreachable, tiles through our origin");

  // A second team of the same name: the team pickers tell the two apart by id.
  await page.goto(`${base}/teams`);
  await page.fill("#team-name", "Austin Roofing");
  await page.click("text=Create team");
  await page.waitForURL(/\/teams\/\d+\?done=created$/);
  const twinId = Number(new URL(page.url()).pathname.split("/").pop());
  for (const [where, picker] of [["/leads/import", "#upload-team"], ["/leads", "#f-team"]]) {
    await page.goto(`${base}${where}`);
    const labels = await page.locator(`${picker} option`).allTextContents();
    assert.ok(labels.includes(`Austin Roofing (#${teamId})`) && labels.includes(`Austin Roofing (#${twinId})`), `${where}: ${labels}`);
  }
  step("two teams of one name are told apart in the team pickers: 'Austin Roofing (#id)'");

  // A long file into the twin team, watched while it runs: the status page polls (no reload) and changes only the
  // text of its live region; the meta refresh is there for browsers without JavaScript only.
  await page.goto(`${base}/leads/import`);
  await page.selectOption("#upload-team", String(twinId));
  const many = ["address,city,state,zip_code"];
  for (let i = 1; i <= 5000; i++) many.push(`${i} Long File Road,Austin,TX,78701`);
  await page.setInputFiles("#upload-file", { name: "many.csv", mimeType: "text/csv", buffer: Buffer.from(many.join("\n")) });
  let loads = 0;
  const countLoads = (frame) => { if (frame === page.mainFrame()) loads += 1; };
  const polls = [];
  const countPolls = (request) => { if (request.resourceType() === "fetch") polls.push(request.url()); };
  await page.getByRole("button", { name: "Upload and import" }).click();
  await page.waitForURL(/\/uploads\/\d+$/);
  page.on("framenavigated", countLoads);
  page.on("request", countPolls);
  assert.equal(await page.locator("#upload-progress").count(), 1, "5,000 rows are still being imported at first sight");
  assert.equal(await page.locator('head > meta[http-equiv="refresh"]').count(), 0, "no meta refresh with JavaScript on");
  assert.equal(await page.locator("#upload-state").getAttribute("aria-live"), "polite");
  const raw = await (await page.request.get(page.url())).text();
  for (const refresh of raw.matchAll(/<meta http-equiv="refresh"[^>]*>/g)) {
    assert.ok(raw.slice(0, refresh.index).endsWith("<noscript>"), "a meta refresh only inside <noscript>");
  }
  await page.locator("#upload-summary").waitFor({ timeout: 120000 });
  page.off("framenavigated", countLoads);
  page.off("request", countPolls);
  assert.equal(loads, 0, "the status page never reloaded");
  assert.ok(polls.length >= 1 && polls.every((u) => u === page.url()), `polled itself: ${polls}`);
  assert.equal(await page.locator("#count-rows").textContent(), "5000");
  await shot(page, "40a-upload-polled-summary");
  step("the upload status page polls (no reload, meta refresh only in <noscript>) and puts the summary in place");

  // Upload a CSV on /leads: one new lead, one duplicate of a lead that exists, one with a bad state (kept, the
  // cell dropped with a warning), one shifted row (more cells than the header: rejected whole).
  await page.goto(`${base}/leads`);
  await page.click("#import-csv");
  await page.waitForURL(`${base}/leads/import`);
  const csv = "address,city,state,zip_code,first_name\n" +
    "88 Barton Springs Road,Austin,TX,78704,Uma\n" +
    "40 Lamar Street,Dallas,TX,,Again\n" +
    "3 Bad State Way,Austin,XX,78701,Val\n" +
    "5 Shifted Way,Austin,TX,78701,=HYPERLINK(\"http://x\"),extra\n";
  await uploadCsv(page, teamId, "leads.csv", csv);
  assert.equal(await page.locator("#count-rows").textContent(), "4");
  assert.equal(await page.locator("#count-created").textContent(), "2");
  assert.equal(await page.locator("#count-merged").textContent(), "1");
  assert.equal(await page.locator("#count-rejected").textContent(), "1");
  assert.equal(await page.locator("#count-warnings").textContent(), "1");
  await shot(page, "41-upload-summary");
  const [report] = await Promise.all([page.waitForEvent("download"), page.click("#reject-report")]);
  const rows = parseCsv(fs.readFileSync(await report.path(), "utf8"));
  assert.deepEqual(rows[0], ["row", "column", "value", "code", "message", "address", "city", "state", "zip_code", "first_name"]);
  assert.equal(rows.length, 3, JSON.stringify(rows));
  assert.deepEqual(rows[1].slice(0, 3), ["4", "state", "XX"], "the dropped cell, with its row and column");
  assert.equal(rows[2][0], "5");
  assert.equal(rows[2][3], "shifted_row");
  assert.equal(rows[2][9], "'=HYPERLINK(\"http://x\")", "formula cells in the report are prefixed");
  const [reportBook] = await Promise.all([page.waitForEvent("download"), page.click("#reject-report-xlsx")]);
  assert.match(reportBook.suggestedFilename(), /^rejected-rows-\d+\.xlsx$/);
  assert.equal(fs.readFileSync(await reportBook.path()).subarray(0, 4).toString("latin1"), "PK\x03\x04");
  step("CSV upload on /leads: progress, then the summary and the reject report read back (CSV and for Excel)");

  // A county roll's columns: the owner's whole name, the whole address and a note, each in its place.
  await page.goto(`${base}/leads/import`);
  const roll = 'Owner Name,Property Address,Notes\n"GARZA, ROSA M","14 Pecan Grove Ln, Austin, TX 78745","Gate code 4411.\nDog in the yard."\n';
  await uploadCsv(page, teamId, "roll.csv", roll);
  assert.equal(await page.locator("#count-created").textContent(), "1");
  assert.equal(await page.locator("#count-notes").textContent(), "1");
  await page.click("#upload-leads");
  // The whole list of the upload at once, nothing ticked: given to me.
  await page.check("#bulk-whole-list");
  await page.selectOption("#bulk-action", "assign-me");
  await page.getByRole("button", { name: "Apply to ticked leads" }).click();
  await page.waitForURL(/[?&]done=bulk$/);
  const owners = await page.locator("td[data-label=Owner]").allInnerTexts();
  assert.ok(owners.length === 1 && owners[0].includes("Olivia Owner"), `owners: ${owners}`);
  await page.getByRole("link", { name: "14 PECAN GROVE LN" }).click();
  await page.locator("#notes").waitFor();
  const lead = await page.locator("main").innerText();
  for (const shown of ["ROSA M", "GARZA", "14 Pecan Grove Ln", "Austin", "78745"]) {
    assert.ok(lead.includes(shown), `the lead page shows ${shown}`);
  }
  assert.equal(await page.locator("#notes .note-text").first().innerText(), "Gate code 4411.\nDog in the yard.");
  await shot(page, "41b-upload-whole-cells");
  step("an upload splits a whole name and a whole address into their fields and puts its notes on the leads; its whole list given away in one step");

  // A sales sheet with headers we do not know: nothing is imported until its columns are chosen.
  await page.goto(`${base}/leads/import`);
  await page.selectOption("#upload-team", String(teamId));
  const sheet = 'Prop Addr,Status,Yr Built\n"61 Cedar Bend Dr, Austin, TX 78758",Contacted,1994\n';
  await page.setInputFiles("#upload-file", { name: "sales.csv", mimeType: "text/csv", buffer: Buffer.from(sheet) });
  await page.getByRole("button", { name: "Upload and import" }).click();
  await page.waitForURL(/\/uploads\/\d+$/);
  await page.locator("#column-choice").waitFor();
  assert.equal(await page.locator("#column-1").inputValue(), "permit_status", "Status is guessed, and asked about");
  await page.setViewportSize({ width: 390, height: 844 });
  const columnsSideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(columnsSideways <= 1, `the columns step scrolls sideways on a phone by ${columnsSideways}px`);
  await page.setViewportSize({ width: 1100, height: 800 });
  await page.getByLabel("Prop Addr").selectOption("address");
  // Here "Status" is how far the lead got: its lead_status, not the permit's.
  await page.getByLabel("Status").selectOption("lead_status");
  await shot(page, "41c-upload-columns");
  await page.getByRole("button", { name: "Import with these columns" }).click();
  await page.locator("#upload-summary").waitFor({ timeout: 30000 });
  assert.equal(await page.locator("#count-created").textContent(), "1");
  assert.equal(await page.locator("#count-work").textContent(), "1", "the sheet's status is the new lead's");
  // The wrong file, seen on its columns step: discarded, nothing imported.
  await page.goto(`${base}/leads/import`);
  await page.selectOption("#upload-team", String(teamId));
  await page.setInputFiles("#upload-file", { name: "wrong.csv", mimeType: "text/csv", buffer: Buffer.from("Colour,Size\nblue,3\n") });
  await page.getByRole("button", { name: "Upload and import" }).click();
  await page.locator("#column-choice").waitFor();
  await page.getByRole("button", { name: "Discard this upload" }).click();
  await page.getByText("Upload discarded: nothing of it was imported.").waitFor();
  assert.equal(await page.getByText("wrong.csv").count(), 0, "the discarded upload is gone from the list");
  step("an upload with unknown columns waits for them: each chosen by its label (Status as the lead's own), then imported as chosen; the wrong file discarded");

  // A file that is not CSV: a clear message on the form, not an error page.
  await page.goto(`${base}/leads/import`);
  await page.setInputFiles("#upload-file", { name: "photo.png", mimeType: "image/png", buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) });
  await page.getByRole("button", { name: "Upload and import" }).click();
  await page.getByText("This file cannot be imported: neither a CSV file nor an Excel workbook").waitFor();
  await shot(page, "42-upload-refused");
  await page.setViewportSize({ width: 390, height: 844 });
  for (const where of ["/leads/import", new URL(report.url()).pathname.replace(/\/report$/, "")]) {
    await page.goto(`${base}${where}`);
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(sideways <= 1, `${where} scrolls sideways on a phone by ${sideways}px`);
  }
  await shot(page, "43-upload-phone");
  await page.setViewportSize({ width: 1100, height: 800 });
  step("a file that is neither CSV nor a workbook is refused with a message; upload pages fit a phone");
}

// ---- Working leads: a member's day on the lead pages, an admin's archive (issue 29) ----
async function workingLeads(a, teamUrl, teamId, submit) {
  // Mia joins the team as a member, in her own browser context.
  await a.goto(teamUrl);
  await a.fill("#invite-email", "mia@example.com");
  await a.selectOption("#invite-role", "member");
  await a.click("text=Send invite");
  await a.getByText("Invite sent.").waitFor();
  const { link } = await mailedLink("invite", "mia@example.com");
  const miaContext = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const m = watch(await miaContext.newPage(), "member");
  await m.goto(link);
  await m.fill("#first-name", "Mia");
  await m.fill("#last-name", "Member");
  await m.click("text=Accept and join");
  await m.waitForURL(/\/teams\/\d+\?done=joined$/);

  const lead = await submit({ address: "300 Congress Avenue", city: "Austin", state: "TX", zip_code: "78701", team_id: teamId,
    first_name: "Wes", last_name: "Walker", primary_phone: "512 555 0142", email_1: "wes@example.com" });
  const typo = await submit({ address: "300 Congres Ave", city: "Austin", state: "TX", zip_code: "78701", team_id: teamId,
    mail_address: "PO Box 12" });
  const loose = await submit({ address: "9 Rainey Street", city: "Austin", state: "TX", zip_code: "78701" });
  assert.notEqual(typo.result_lead_id, lead.result_lead_id, "a typo'd street is a second lead");
  const leadUrl = `${base}/leads/${lead.result_lead_id}`;

  // The owner gives the lead to Mia from its page.
  await a.goto(leadUrl);
  const miaValue = await a.locator("#w-owner option", { hasText: "mia@example.com" }).getAttribute("value");
  await a.selectOption("#w-owner", miaValue);
  await a.getByRole("button", { name: "Save status and owner" }).click();
  await a.getByText("Status and owner saved.").waitFor();

  // Mia: My leads, the lead's page, a status, a note, then the lead to a colleague.
  await m.goto(`${base}/leads`);
  await m.locator("#my-leads").click();
  await m.waitForURL(`${base}/leads?assignee=me`);
  await m.locator("#lead-count").getByText("1 lead matches these filters").waitFor();
  await shot(m, "50-my-leads");
  await m.getByRole("link", { name: "300 CONGRESS AVE" }).click();
  await m.waitForURL(`${leadUrl}?in=assignee%3Dme&at=0`); // the lead's place in the list rides along
  assert.equal(await m.locator('#work a[href="tel:+15125550142"]').count(), 1, "the phone is a tel: link");
  assert.equal(await m.locator('#work a[href="mailto:wes@example.com"]').count(), 1, "the e-mail is a mailto: link");
  assert.equal(await m.getByRole("button", { name: "Archive lead" }).count(), 0, "a member archives nothing");
  await m.selectOption("#w-status", "contacted");
  await m.getByRole("button", { name: "Save status and owner" }).click();
  await m.getByText("Status and owner saved.").waitFor();
  await m.fill("#note-body", "Spoke to Wes: wants a roof quote by Friday.");
  await m.getByRole("button", { name: "Add note" }).click();
  await m.getByText("Note added.").waitFor();
  await m.locator("#newest-note").getByText("wants a roof quote").waitFor();
  const ownerValue = await m.locator("#w-owner option", { hasText: "owner@example.com" }).getAttribute("value");
  await m.selectOption("#w-owner", ownerValue);
  await m.getByRole("button", { name: "Save status and owner" }).click();
  await m.getByText("Status and owner saved.").waitFor();
  const timeline = m.locator("#timeline");
  await timeline.getByText("Status new → contacted").waitFor();
  await timeline.getByText("Added a note").waitFor();
  assert.equal(await timeline.getByText(/^Owner .*mia@example.com.* → .*owner@example.com/).count(), 1, "the hand-over is in the timeline");
  await shot(m, "51-lead-worked");
  step("a member opens My leads, sets a status, adds a note and gives the lead to a colleague; the timeline shows each");

  // Mia sets a follow-up for today (the browser's own day) and finds the lead under "Follow-ups due".
  const now = new Date();
  const pad = (n) => String(n).padStart(2, "0");
  const today = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const next = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 7);
  await m.locator("[data-quick-days='w-follow-up']").getByRole("button", { name: "in a week" }).click();
  assert.equal(await m.inputValue("#w-follow-up"), `${next.getFullYear()}-${pad(next.getMonth() + 1)}-${pad(next.getDate())}`, "'in a week' fills the browser's day + 7");
  await m.fill("#w-follow-up", today);
  await m.getByRole("button", { name: "Save status and owner" }).click();
  await m.getByText("Status and owner saved.").waitFor();
  await m.locator("#follow-up").getByText(today).waitFor();
  await m.locator("#timeline").getByText(`Follow-up set for ${today}`).waitFor();
  await m.goto(`${base}/leads`);
  await m.locator("#follow-ups-due").click();
  await m.waitForURL(`${base}/leads?follow_up_by=${today}&sort=follow_up_on`);
  await m.locator("#lead-count").getByText("1 lead matches these filters").waitFor();
  await m.locator("td .badge.due").getByText(today).waitFor();
  await shot(m, "51b-follow-ups-due");
  step("a member sets a follow-up day on the lead page ('in a week' fills the field); 'Follow-ups due' (the browser's own day) lists it soonest first");

  // The pages count "today" by the person's own day: pages.js keeps the browser's offset from UTC
  // in a cookie, and the server draws the dashboard's "due" link with that day. A browser whose
  // date is not UTC's right now (UTC+14 in the UTC afternoon, UTC-12 in its morning) shows it.
  const farZone = now.getUTCHours() >= 12 ? "Pacific/Kiritimati" : "Etc/GMT+12";
  const far = await browser.newContext({ viewport: { width: 1100, height: 800 }, timezoneId: farZone });
  await far.addCookies(await miaContext.cookies());
  const f = watch(await far.newPage(), "member far away");
  await f.goto(`${base}/`);
  const offset = (await far.cookies(base)).find((c) => c.name === "leadhub_utc_offset");
  assert.equal(offset?.value, farZone === "Pacific/Kiritimati" ? "840" : "-720", "pages.js keeps the browser's offset");
  const farDay = await f.evaluate(() => {
    const d = new Date();
    const two = (n) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
  });
  assert.notEqual(farDay, new Date().toISOString().slice(0, 10), `${farZone}'s day is not UTC's`);
  const drawn = await (await f.request.get(`${base}/`)).text();
  assert.ok(drawn.includes(`follow_up_by=${farDay}&amp;sort=follow_up_on" data-today-param`), `the server draws ${farDay}`);
  await f.goto(leadUrl);
  const shownAt = (await f.locator("#timeline .timeline-item .muted").first().textContent()).trim();
  // The newest entry is seconds old: its hour on the far clock is this one's, or the one before.
  const hours = await f.evaluate(() => [0, 60000].map((back) => {
    const d = new Date(Date.now() - back);
    return ` ${d.getFullYear()} ${String(d.getHours()).padStart(2, "0")}:`;
  }));
  assert.ok(hours.some((h) => shownAt.includes(h)) && !shownAt.endsWith("UTC"), `the timeline on the far browser's clock: ${shownAt}`);
  await far.close();
  step("a browser far from UTC keeps its offset in a cookie; the server draws the dashboard's 'due' link with its day and the lead's times on its clock");

  // Mia claims a lead of no team, then merges the typo'd lead into the real one.
  await m.goto(`${base}/leads/${loose.result_lead_id}`);
  await m.locator("#unassigned-mark").getByText("Unassigned: every user can see it").waitFor();
  await m.getByRole("button", { name: "Claim for Austin Roofing" }).click();
  await m.getByText("Lead claimed").waitFor();
  await m.locator("#timeline").getByText("Claimed into Austin Roofing").waitFor();
  assert.equal(await m.locator("#unassigned-mark").count(), 0);
  await m.goto(`${base}/leads/${typo.result_lead_id}`);
  await m.fill("#merge-into", String(lead.result_lead_id));
  await m.getByRole("button", { name: "Merge" }).click();
  await m.waitForURL(`${leadUrl}?done=merged#timeline`);
  await m.getByText("Leads merged: this is the lead that was kept.").waitFor();
  await m.locator("#timeline").getByText(`Lead ${typo.result_lead_id} merged into this one`).waitFor();
  await m.locator(".facts dd").getByText("PO Box 12", { exact: true }).waitFor(); // the kept lead took the merged one's value where it had none
  await m.goto(`${base}/leads/${typo.result_lead_id}`);
  await m.waitForURL(`${leadUrl}?done=merged-away`);
  await shot(m, "52-lead-merged");
  step("a member claims an unassigned lead and merges a typo'd duplicate; the merged lead's URL leads to the kept one");

  // The owner (an admin of the team) archives the lead and restores it.
  await a.goto(leadUrl);
  await a.getByRole("button", { name: "Archive lead" }).click();
  await a.getByText("Lead archived").waitFor();
  await a.locator("#archived-mark").waitFor();
  await a.goto(`${base}/leads?archived=true`);
  await a.getByRole("link", { name: "300 CONGRESS AVE" }).waitFor();
  await a.goto(leadUrl);
  await a.getByRole("button", { name: "Restore lead" }).click();
  await a.getByText("Lead restored.").waitFor();
  assert.equal(await a.locator("#archived-mark").count(), 0);
  await a.locator("#timeline").getByText("Archived", { exact: true }).waitFor();
  await shot(a, "53-lead-restored");
  step("an admin archives a lead (it moves to the archive view) and restores it; both in the timeline");

  // Mia marks the lead do not call: its page says so above the number, which is no tel: link any
  // more; she cannot take the mark off. The owner (an admin) finds it marked and takes it off.
  await m.goto(leadUrl);
  await m.getByRole("button", { name: "Mark do not call (the owner asked)" }).click();
  await m.getByText("Marked do not call: the call lists leave this lead out.").waitFor();
  await m.locator("#dnc-warning").getByText("The owner must not be called").waitFor();
  await m.locator("#dnc-mark").waitFor();
  assert.equal(await m.locator('#work a[href="tel:+15125550142"]').count(), 0, "no tel: link on a do-not-call lead");
  assert.equal(await m.getByRole("button", { name: /Take the do-not-call mark off/ }).count(), 0, "a member takes no mark off");
  await m.locator("#timeline").getByText("Marked do not call", { exact: true }).waitFor();
  await shot(m, "53b-do-not-call");
  await a.goto(`${base}/leads?do_not_call=true`);
  await a.getByRole("link", { name: "300 CONGRESS AVE" }).waitFor();
  await a.goto(leadUrl);
  await a.getByRole("button", { name: /Take the do-not-call mark off/ }).click();
  await a.getByText("The do-not-call mark is off").waitFor();
  assert.equal(await a.locator('#work a[href="tel:+15125550142"]').count(), 1, "the number dials again");
  step("a member marks a lead do not call (a badge, a warning, no tel: link); the admin finds it in the marked list and takes the mark off");

  // The owner asks not to be called at one number: it leaves the lead and its list, the other stays to call;
  // the team's owner lifts it (it is not put back among the phones).
  const twoNumbers = await submit({ address: "12 Rainey Street", city: "Austin", state: "TX", zip_code: "78701", team_id: teamId,
    first_name: "Ann", primary_phone: "512 555 0171", phone_2: "512 555 0172" });
  await a.goto(`${base}/leads/${twoNumbers.result_lead_id}`);
  await a.getByRole("button", { name: "do not call this number: (512) 555-0171" }).click();
  await a.getByText("Number taken off the lead").waitFor();
  assert.equal(await a.locator('#work a[href="tel:+15125550171"]').count(), 0, "a barred number is no link to dial");
  assert.equal(await a.locator('#work a[href="tel:+15125550172"]').count(), 1, "the other number stays to call");
  await a.locator("#numbers-not-to-call").getByText("(512) 555-0171").waitFor();
  await shot(a, "51a-number-not-to-call");
  await a.getByRole("button", { name: "may be called again: (512) 555-0171" }).click();
  await a.getByText("The number may be called again").waitFor();
  assert.equal(await a.locator("#numbers-not-to-call").count(), 0, "the list is empty again");
  step("one number barred at the owner's request from the lead page (no tel: link, listed apart), then lifted by the team's owner");

  // Mia tags the lead from its page, follows the tag to the list of leads carrying it, and takes
  // one tag off again; the bulk bar tags two leads at once.
  await m.goto(leadUrl);
  await m.fill("#tag-new", "Hot, storm 2026");
  await m.getByRole("button", { name: "Add tag" }).click();
  await m.getByText("Tags added.").waitFor();
  await m.locator("#tags").getByRole("link", { name: "storm 2026" }).waitFor();
  await m.locator("#timeline").getByText("Tagged hot, storm 2026", { exact: true }).waitFor();
  await shot(m, "53c-lead-tags");
  await m.locator("#tags").getByRole("link", { name: "hot" }).click();
  await m.locator("#lead-count").getByText("1 lead matches these filters").waitFor();
  assert.equal(await m.inputValue("#f-tag"), "hot");
  await m.goto(leadUrl);
  await m.getByRole("button", { name: "Take the tag hot off" }).click();
  await m.getByText("Tag taken off.").waitFor();
  assert.equal(await m.locator("#tags").getByRole("link", { name: "hot" }).count(), 0, "the tag is off");
  await m.goto(`${base}/leads`);
  await m.check(`#pick-${lead.result_lead_id}`);
  await m.check(`#pick-${loose.result_lead_id}`);
  await m.selectOption("#bulk-action", "add-tag");
  await m.fill("#bulk-tag", "mailer 12");
  await m.getByRole("button", { name: "Apply to ticked leads" }).click();
  await m.getByText("The selected leads were changed.").waitFor();
  await m.goto(`${base}/leads?tag=mailer+12`);
  await m.locator("#lead-count").getByText("2 leads match these filters").waitFor();
  step("a member tags a lead from its page, lists the leads of a tag, takes a tag off, and tags two leads from the bulk bar");

  // The tag field suggests the tags in use (the /tags page's rows, read when it is first
  // focused); the tags page renames one on every lead carrying it.
  await m.goto(leadUrl);
  assert.equal(await m.locator("#known-tags option").count(), 0, "nothing read before the field is used");
  await m.focus("#tag-new");
  await m.locator('#known-tags option[value="mailer 12"]').waitFor({ state: "attached" });
  await m.goto(`${base}/tags`);
  const mailer = m.locator('tr[data-tag="mailer 12"]');
  await mailer.getByLabel("New name of mailer 12").fill("Mailer Twelve");
  await mailer.getByRole("button", { name: "Rename" }).click();
  await m.getByText("Tag renamed on every lead that carried it.").waitFor();
  await m.locator('tr[data-tag="mailer twelve"]').getByRole("link", { name: "2", exact: true }).waitFor();
  await shot(m, "53d-tags");
  step("the tag field suggests the tags in use once focused; the tags page renames a tag on both leads carrying it");

  // Mia keeps that list as a view: it shows above every list, marked when open, and goes with
  // its ×.
  await m.goto(`${base}/leads?tag=mailer+twelve`);
  await m.locator("#save-view summary").click();
  await m.fill("#view-name", "Mailer twelve");
  await m.getByRole("button", { name: "Save view" }).click();
  await m.getByText("View saved: it is among your views above the list.").waitFor();
  await m.goto(`${base}/leads`);
  await m.locator("#saved-views").getByRole("link", { name: "Mailer twelve" }).click();
  await m.locator("#lead-count").getByText("2 leads match these filters").waitFor();
  assert.equal(await m.locator('#saved-views a[aria-current="page"]').textContent(), "Mailer twelve");
  await shot(m, "53e-saved-view");
  await m.getByRole("button", { name: "Delete the view Mailer twelve" }).click();
  await m.getByText("View deleted.").waitFor();
  assert.equal(await m.locator("#saved-views").count(), 0, "no views left");
  step("a member saves a filtered list as a view, opens it from above the list, and deletes it");

  // The owner keeps a view for everyone in the team: Mia opens it, marked with the team, and has
  // no × to delete it.
  await a.goto(`${base}/leads?tag=mailer+twelve`);
  await a.locator("#save-view summary").click();
  await a.fill("#view-name", "Team mailer");
  // The owner has two teams of this name: the choice and the view's mark name the team's id.
  await a.selectOption("#view-team", { label: `everyone in Austin Roofing (#${teamId})` });
  await a.getByRole("button", { name: "Save view" }).click();
  await a.getByText("View saved: it is among your views above the list.").waitFor();
  await a.getByRole("button", { name: `Delete the view Team mailer for everyone in Austin Roofing (#${teamId})` }).waitFor();
  await m.goto(`${base}/leads`);
  await m.locator("#saved-views").getByRole("link", { name: "Team mailer" }).click();
  await m.locator("#lead-count").getByText("2 leads match these filters").waitFor();
  assert.equal(await m.locator("#saved-views .view-team").textContent(), "· Austin Roofing");
  assert.equal(await m.getByRole("button", { name: /Delete the view Team mailer/ }).count(), 0);
  await shot(m, "53f-team-view");
  step("the owner keeps a view for everyone in the team; a member opens it and has no × for it");

  // The bulk bar (a plain form) and the edit form.
  await m.goto(`${base}/leads`);
  await m.check(`#pick-${lead.result_lead_id}`);
  await m.check(`#pick-${loose.result_lead_id}`);
  await m.selectOption("#bulk-action", "status:qualified");
  await m.getByRole("button", { name: "Apply to ticked leads" }).click();
  await m.getByText("The selected leads were changed.").waitFor();
  await m.goto(`${base}/leads?status=qualified`);
  await m.locator("#lead-count").getByText("2 leads match these filters").waitFor();
  await shot(m, "54-leads-bulk");
  await m.goto(`${leadUrl}/edit`);
  await m.fill("#e-last_name", "Walker-Ray");
  await m.fill("#e-phone_2", "(512) 555-0143");
  await m.getByRole("button", { name: "Save changes" }).click();
  await m.getByText("Lead saved.").waitFor();
  assert.equal(await m.locator('#work a[href="tel:+15125550143"]').count(), 1);
  await m.locator("#timeline").getByText("Edited 2 fields").waitFor();
  await shot(m, "55-lead-edited");
  step("bulk status from the list's bar; the edit form normalises a phone like intake and the timeline lists the edit");

  // The owner gives both qualified leads to Mia by name, then works down Mia's list.
  await a.goto(`${base}/leads?status=qualified&sort=created_at`);
  await a.check(`#pick-${lead.result_lead_id}`);
  await a.check(`#pick-${loose.result_lead_id}`);
  await a.selectOption("#bulk-action", { label: "give them to Mia Member <mia@example.com>" });
  await a.getByRole("button", { name: "Apply to ticked leads" }).click();
  await a.getByText("The selected leads were changed.").waitFor();
  await a.goto(`${base}/leads?assignee=${miaValue}&sort=created_at`);
  await a.locator("#lead-count").getByText("2 leads match these filters").waitFor();
  assert.equal(await a.locator("#f-assignee option:checked").textContent(), "Mia Member <mia@example.com>");
  await a.getByRole("link", { name: "300 CONGRESS AVE" }).click();
  await a.locator("#walk-place").getByText("Lead 1 of 2 in the list").waitFor();
  await a.getByRole("button", { name: "Save and open the next lead" }).click();
  await a.getByText("Saved. This is the next lead in the list.").waitFor();
  await a.locator("#walk-place").getByText("Lead 2 of 2 in the list").waitFor();
  assert.match(a.url(), new RegExp(`/leads/${loose.result_lead_id}\\?in=.*&at=1&done=saved-then-next$`));
  await a.selectOption("#w-status", "won");
  await a.getByRole("button", { name: "Save status and owner" }).click();
  await a.getByText("Status and owner saved.").waitFor();
  await a.locator("#walk-place").getByText("Lead 2 of 2 in the list").waitFor();
  await shot(a, "55b-lead-walk");
  await a.locator("#walk-previous").click();
  await a.locator("#walk-place").getByText("Lead 1 of 2 in the list").waitFor();
  await a.locator("#walk-next").click();
  await a.locator("#walk-place").getByText("Lead 2 of 2 in the list").waitFor();
  await a.locator("#walk-back").click();
  await a.locator("#lead-count").getByText("2 leads match these filters").waitFor();
  // Shared out between the owner and Mia: one lead each, so Mia's list holds one.
  await a.check(`#pick-${lead.result_lead_id}`);
  await a.check(`#pick-${loose.result_lead_id}`);
  await a.locator("#share-out summary").click();
  await a.locator("#share-out").getByLabel("me", { exact: true }).check();
  await a.locator("#share-out").getByLabel("Mia Member <mia@example.com>").check();
  await shot(a, "55c-share-out");
  await a.getByRole("button", { name: "Share out" }).click();
  await a.getByText("Leads shared out: each person ticked got their share").waitFor();
  await a.locator("#lead-count").getByText("1 lead matches these filters").waitFor();
  step("an owner gives ticked leads to a teammate by name, filters by that teammate, walks the list (save and next, save, previous, next, back) and shares leads out");

  // A call logged from the list's first lead: what was said, the next day, the outcome's button.
  await a.locator("a[href*='&at=0']").first().click();
  await a.locator("#walk-place").getByText(/^Lead 1 of \d+ in the list$/).waitFor();
  const called = a.url().split("?")[0];
  assert.equal(await a.isChecked("#c-then-next"), true);
  await a.fill("#c-note", "Left a voicemail; calling back Thursday");
  await a.locator("#contact-form").getByRole("button", { name: "in 3 days" }).click();
  assert.match(await a.inputValue("#c-follow-up"), /^\d{4}-\d{2}-\d{2}$/);
  // The number called: the lead's first, chosen unless another is picked (none without phones).
  const phone = (await a.locator("#c-phone").count())
    ? (await a.locator("#c-phone option:checked").textContent())
    : null;
  await shot(a, "55d-contact-log");
  await a.getByRole("button", { name: "Left a message" }).click();
  await a.getByText(/^Contact logged\./).waitFor();
  await a.goto(called);
  const line = phone ? `Called ${phone}: left a message` : "Called: left a message";
  await a.locator("#timeline").getByText(line).waitFor();
  await a.locator("#newest-note").getByText("Left a voicemail; calling back Thursday").waitFor();
  assert.match(await a.inputValue("#w-follow-up"), /^\d{4}-\d{2}-\d{2}$/);
  step("an owner logs a call from a list's lead (note, 'in 3 days', 'Left a message'); the timeline and the newest note show it");

  // The leads still to call leave out the one just called; the Contacts filter finds it.
  const calledPath = new URL(called).pathname;
  await a.goto(`${base}/leads`);
  await a.getByRole("link", { name: "Not contacted yet" }).click();
  assert.equal(await a.locator("#f-contacted option:checked").textContent(), "none logged yet");
  await a.locator("#lead-count").waitFor();
  assert.equal(await a.locator(`table.leads a[href^='${calledPath}?']`).count(), 0);
  await a.selectOption("#f-contacted", "true");
  await a.getByRole("button", { name: "Apply", exact: true }).click();
  await a.locator("#lead-count").getByText("1 lead matches these filters").waitFor();
  await a.locator(`table.leads a[href^='${calledPath}?']`).first().waitFor();
  await a.locator("table.leads").getByText("left a message").waitFor();
  await shot(a, "55e-contacted-filter");
  step("the 'Not contacted yet' view leaves the called lead out; 'at least one logged' lists it with its last contact");

  // The same contact on the ticked leads at once: an e-mail sent to the whole list.
  await a.check(`#pick-${calledPath.split("/").pop()}`);
  await a.locator("#bulk-contact summary").click();
  await a.fill("#bulk-contact-note", "Sent the spring offer to the list");
  await a.locator("#bulk-contact").getByRole("button", { name: "in a week" }).click();
  assert.match(await a.inputValue("#bulk-contact-follow-up"), /^\d{4}-\d{2}-\d{2}$/);
  await shot(a, "55f-bulk-contact");
  await a.locator("#bulk-contact").getByRole("button", { name: "Sent an e-mail" }).click();
  await a.getByText("The selected leads were changed.").waitFor();
  await a.locator("table.leads").getByText("sent an e-mail").waitFor();
  await a.locator("table.leads").getByText("2 in all").waitFor();
  await a.goto(called);
  await a.locator("#newest-note").getByText("Sent the spring offer to the list").waitFor();
  step("a contact logged on the ticked leads from the list (note, 'in a week', 'Sent an e-mail'): the list and the lead show it");

  // The day's calls: the dashboard's count of contacts opens the leads they were logged on.
  await a.goto(`${base}/`);
  await a.locator("#my-contacts").click();
  await a.locator("#contacted-today[aria-current='page']").waitFor();
  assert.equal(await a.locator("#f-contacted-by option:checked").textContent(), "me");
  await a.locator(`table.leads a[href^='${calledPath}?']`).first().waitFor();
  await shot(a, "55h-contacted-today");
  step("the dashboard's contacts of today open the leads they were logged on ('Contacted by me today')");

  // The e-mail of follow-ups due: on unless turned off, switched off and on again on the dashboard.
  await a.goto(`${base}/`);
  await a.locator("#digest").getByText(/you get an e-mail listing them after \d\d:00 (UTC|your time)/).waitFor();
  await a.getByRole("button", { name: "Stop these e-mails" }).click();
  await a.getByText("You will get no more e-mail of follow-ups due or of new leads given to you.").waitFor();
  await shot(a, "55g-digest-off");
  await a.getByRole("button", { name: "E-mail me about my leads" }).click();
  await a.getByText("You will get an e-mail on the days you have follow-ups due, and one when your team gives you new leads in turn.").waitFor();
  step("the e-mail of follow-ups due is turned off and on again from the dashboard");

  // A canvasser at one door: the lead's "Nearby leads" card, then the list of them nearest first.
  const sixth = await submit({ address: "300 W 6th St", city: "Austin", state: "TX", zip_code: "78701", team_id: teamId,
    latitude: 30.2690, longitude: -97.7470 });
  await submit({ address: "310 W 6th St", city: "Austin", state: "TX", zip_code: "78701", team_id: teamId,
    latitude: 30.2693, longitude: -97.7480 });
  await a.goto(`${base}/leads/${sixth.result_lead_id}`);
  const nearby = a.locator("#nearby");
  assert.equal(await nearby.locator("ol.nearby li").first().locator("a").textContent(), "310 W 6TH ST");
  await nearby.getByText("0.1 mi").first().waitFor();
  await shot(a, "55i-nearby-card");
  await a.locator("#nearby-list").click();
  await a.waitForURL(/\/leads\?near=30\.269,-97\.747&within_miles=1&sort=distance$/);
  await a.locator("#near-filter").getByText("Only the leads within 1 mile of 30.26900, -97.74700").waitFor();
  assert.equal(await a.locator("#f-sort option:checked").textContent(), "nearest first");
  assert.equal(await a.locator("table.leads tbody tr").first().locator("td[data-label='Address'] a").textContent(), "300 W 6TH ST");
  await a.locator("table.leads").getByText("under 0.1 mi away").waitFor();
  await shot(a, "55j-leads-nearby");
  await a.fill("#f-within", "0.5");
  await a.getByRole("button", { name: "Apply", exact: true }).click();
  await a.waitForURL(/within_miles=0\.5/);
  await a.locator("#near-filter").getByText("Only the leads within 0.5 miles of 30.26900, -97.74700").waitFor();
  assert.equal(await a.locator("#f-sort option:checked").textContent(), "nearest first");
  await a.locator("#remove-near-filter").click();
  await a.waitForURL(`${base}/leads`);
  assert.equal(await a.locator("#f-sort option[value='distance']").count(), 0, "no order by distance without a place");
  // "Near me": the browser's position (granted here; a phone asks its person) as the place.
  await a.context().grantPermissions(["geolocation"], { origin: base });
  await a.context().setGeolocation({ latitude: 30.2691, longitude: -97.7472 });
  await a.goto(`${base}/leads?status=new`);
  await a.locator("#near-me").click();
  await a.waitForURL(/\/leads\?status=new&near=30\.26910%2C-97\.74720&within_miles=1&sort=distance$/);
  assert.equal(await a.locator("table.leads tbody tr").first().locator("td[data-label='Address'] a").textContent(), "300 W 6TH ST");
  await a.context().clearPermissions();
  step("a lead's 'Nearby leads' card opens the leads within a mile, nearest first, each with its distance; the place is removed in one click; 'Near me' lists them from the browser's position");

  // The owner gives Mia the team's new leads in turn: the next lead that arrives is hers, and says
  // so; then takes her out again, leaving the team page as it was.
  await a.goto(teamUrl);
  await a.getByRole("button", { name: "Give new leads to mia@example.com" }).click();
  await a.getByText("New leads of the team now come to this member in turn.").waitFor();
  await a.locator("#in-turn").getByText("New leads of this team go to Mia Member").waitFor();
  await shot(a, "14a-new-leads-in-turn");
  const dealt = await submit({ address: "14 Rainey Street", city: "Austin", state: "TX", zip_code: "78701", team_id: teamId });
  await m.goto(`${base}/leads/${dealt.result_lead_id}`);
  await m.locator("#timeline").getByText("Given in turn to Mia Member").waitFor();
  await a.goto(teamUrl);
  await a.getByRole("button", { name: "Stop new leads to mia@example.com" }).click();
  await a.getByText("No more new leads in turn for this member").waitFor();
  await a.locator("#in-turn").getByText("Nobody takes this team's new leads in turn").waitFor();
  step("the owner gives a member the team's new leads in turn from the team page; the next lead is hers and its timeline says so");

  await m.setViewportSize({ width: 390, height: 844 });
  // On a phone the list's lesser filters start folded: the count of leads is on the first screen.
  await m.goto(`${base}/leads?assignee=me&do_not_call=false`);
  assert.equal(await m.locator("#more-filters").evaluate((d) => d.open), false);
  assert.equal(await m.locator("#bulk").evaluate((d) => d.open), false);
  assert.equal(await m.locator("#more-filters summary").textContent(), "More filters (1 set)");
  // Folded, the count of the list is on the first screen and its first lead a flick below it
  // (unfolded, the first lead was three screens down: 2,500px).
  const top = (where) => m.locator(where).first().evaluate((el) => el.getBoundingClientRect().top);
  const [countAt, firstAt] = [await top("#lead-count"), await top("table.leads tbody tr")];
  assert.ok(countAt < 844, `the count of leads is ${countAt}px down a 844px phone screen`);
  assert.ok(firstAt < 1000, `the first lead is ${firstAt}px down a 844px phone screen`);
  await m.locator("#more-filters summary").click();
  assert.equal(await m.inputValue("#f-do-not-call"), "false");
  step("on a phone the list's lesser filters ('More filters (1 set)') and the bulk bar are folded: the list starts on the first screen");
  for (const [where, name] of [[leadUrl, "56-lead-work-phone"], [`${base}/leads?assignee=me`, "57-my-leads-phone"], [`${leadUrl}/edit`, "58-lead-edit-phone"]]) {
    await m.goto(where);
    const sideways = await m.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(sideways <= 1, `${where} scrolls sideways on a phone by ${sideways}px`);
    await shot(m, name);
  }
  await miaContext.close();
  step("the working-lead pages at phone width: no sideways scrolling, 0 axe-core violations");
}
