package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.support.ui.Select;

/**
 * The API tokens page (tokens.html) in Debian's headless Chromium against the real control
 * room: an admin makes a viewer token there, sees it once (the box's colour in the pixels),
 * the token works on the API at its role (a GET answers, a start is a 403), the page lists it
 * as active (green) and never shows the token again; the revoke button makes it revoked (red)
 * and its next request a 401.
 */
class ControlTokensWebIT {
    @TempDir
    Path brokerDir;
    @TempDir
    Path controlHome;
    @TempDir
    Path browserDir;
    private Mosquitto broker;
    private ControlServer control;
    private Browser browser;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {browser, control, broker}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void aTokenIsMadeShownOnceUsedAndRevokedFromItsPage() throws Exception {
        if (!Browser.available()) {
            Assumptions.assumeTrue(System.getenv("CI") != null,
                    "no chromium and chromium-driver here (apt-get install chromium chromium-driver): skipped");
            throw new AssertionError("CI must install chromium and chromium-driver (.ci/run does)");
        }
        broker = new Mosquitto(brokerDir, "a1");
        control = new ControlServer(controlHome, broker);
        String base = "http://127.0.0.1:" + control.port;
        browser = new Browser(browserDir.resolve("profile"), 1200, 800);
        browser.open(base + "/ui/tokens.html");
        browser.awaitElement(30, "#login");
        browser.find("#user").sendKeys("admin");
        browser.find("#password").sendKeys(control.adminPassword());
        browser.find("#login-button").click();
        browser.awaitElement(30, "#token-form");
        assertTrue(browser.find("nav.top #my-tokens").getAttribute("class").contains("active"));

        browser.find("#token-name").sendKeys("dashboard");
        new Select(browser.find("#token-role")).selectByValue("viewer");
        browser.find("#token-make").click();
        String token = browser.awaitElement(30, "#token-value").getText();
        assertTrue(token.matches("rtbox_[A-Za-z0-9_-]{43}"), token);
        BufferedImage once = Browser.shot(browser.find(".token-once"));
        assertTrue(Browser.count(once, "#fffde7") > 2000, "the shown-once box is not painted");
        browser.awaitElement(30, "#token-table .token.active");
        assertTrue(Browser.count(Browser.shot(browser.find("#token-table .token.active")), "#c8e6c9") > 50,
                "the active badge's colour");

        // The token at its role: a GET answers, a start (operator) is refused.
        assertEquals(200, call("GET", "/fleet", token).statusCode());
        HttpResponse<String> start = call("POST", "/starts", token);
        assertEquals(403, start.statusCode(), start.body());
        assertTrue(start.body().contains("needs role operator; you are viewer"), start.body());

        // Shown once: a reload lists it without the token.
        browser.driver.navigate().refresh();
        browser.awaitElement(30, "#token-table .token.active");
        assertTrue(browser.driver.findElements(org.openqa.selenium.By.cssSelector("#token-value")).isEmpty());
        assertFalse(browser.driver.getPageSource().contains(token), "the token is on the page after a reload");

        // Revoke: red, and its next request a 401.
        browser.find("#token-table button.revoke").click();
        browser.driver.switchTo().alert().accept();
        var revoked = browser.awaitElement(30, "#token-table .token.revoked");
        assertTrue(Browser.count(Browser.shot(revoked), "#ffcdd2") > 50, "the revoked badge's colour");
        HttpResponse<String> after = call("GET", "/fleet", token);
        assertEquals(401, after.statusCode(), after.body());
        assertTrue(after.body().contains("API token 'dashboard' was revoked"), after.body());
    }

    private HttpResponse<String> call(String method, String path, String token) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + control.port + "/api/v1" + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString("{\"plan\":\"x\",\"targets\":[]}"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
