/**
 * The /docs page in a real headless Chromium (Debian's, driven by playwright-core): Swagger UI renders
 * the /doc document, lists the routes, and "Try it out" → "Execute" on GET /events answers 200.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`; `npm test` installs it as root, scripts/ensure-test-services.sh) or CHROMIUM_PATH. Without
 * it the test fails, saying so: it never passes without having run the browser.
 */
import fs from "fs";
import { chromium, Browser, Page } from "playwright-core";
import { startService, Running } from "../helpers/harness";

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
  "--disable-sync", "--no-first-run"];
const UI_TIMEOUT = 20000;

jest.setTimeout(90000);

describe("the /docs page in a browser", () => {
  let svc: Running | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const browserErrors: string[] = [];

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM_PATH)) {
      throw new Error(`Chromium not found at ${CHROMIUM_PATH}. Install Debian's package (as root: apt-get install -y chromium; `
        + "`npm test` does it: scripts/ensure-test-services.sh) or point CHROMIUM_PATH at a Chromium binary. This browser test cannot run without it.");
    }
    svc = await startService();
    try {
      browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    } catch (err) {
      throw new Error(`Chromium at ${CHROMIUM_PATH} did not start: ${(err as Error).message}`);
    }
    page = await browser.newPage();
    page.on("pageerror", err => browserErrors.push(err.message));
    // One published event, so the executed request shows a record.
    const created = await svc.request("POST", "/events", { as: "admin", body: { title: "Docs Page Concert", start_date: "tomorrow 20:00", end_date: "tomorrow 22:00" } });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  test("renders the document, lists the events routes, and runs GET /events with a 200", async () => {
    const p = page as Page;
    const { port } = svc as Running;
    const response = await p.goto(`http://localhost:${port}/docs`, { waitUntil: "load" });
    expect(response?.status()).toBe(200);

    // Swagger UI fetched /doc and rendered its info and operations.
    await p.locator(".swagger-ui .info .title").waitFor({ timeout: UI_TIMEOUT });
    expect(await p.locator(".swagger-ui .info .title").innerText()).toContain("Calendar Events REST API");
    const summaries = p.locator(".opblock .opblock-summary-path");
    await summaries.first().waitFor({ timeout: UI_TIMEOUT });
    const paths = (await summaries.allInnerTexts()).map(t => t.replace(/\u200b/g, "").trim());
    for (const path of ["/events", "/events/{id}", "/events/by-slug/{slug}", "/venues", "/organizers", "/categories", "/tags/{id}"]) {
      expect(paths).toContain(path);
    }

    // Open GET /events, "Try it out", "Execute".
    const getEvents = p.locator(".opblock.opblock-get").filter({ has: p.locator(".opblock-summary-path", { hasText: /^\/events$/ }) }).first();
    await getEvents.locator(".opblock-summary").first().click();
    await getEvents.locator("button.try-out__btn").click();
    await getEvents.locator("button.execute").click();

    const status = getEvents.locator(".live-responses-table .response .response-col_status").first();
    await status.waitFor({ timeout: UI_TIMEOUT });
    expect((await status.innerText()).trim()).toBe("200");
    const body = getEvents.locator(".live-responses-table .response-col_description .microlight, .live-responses-table .response-col_description pre").first();
    await body.waitFor({ timeout: UI_TIMEOUT });
    expect(await body.innerText()).toContain("Docs Page Concert");
    // The request went to the document's server: {api_root}/calendar/events/v1/events.
    expect(await getEvents.locator(".request-url").innerText()).toContain(`http://localhost:${port}/wp-json/calendar/events/v1/events`);
    expect(browserErrors).toEqual([]);
  });
});
