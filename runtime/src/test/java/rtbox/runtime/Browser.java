package rtbox.runtime;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Level;

import javax.imageio.ImageIO;

import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * Debian's headless Chromium driven by Selenium through Debian's chromedriver (both
 * from apt: chromium, chromium-driver), with a fresh profile and nothing that calls
 * home. Screenshots come back as images, so that a test checks pixels, not only DOM.
 */
final class Browser implements AutoCloseable {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    final ChromeDriver driver;

    Browser(Path profile, int width, int height) {
        this(profile, width, height, null);
    }

    /**
     * A browser whose time zone is {@code timeZone} (the TZ of chromedriver and so of Chromium,
     * as a machine set to that zone has it; null: this machine's) and which records every
     * request its pages make (Chromium's performance log: {@link #requests()}).
     */
    Browser(Path profile, int width, int height, String timeZone) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", "--force-device-scale-factor=1", "--user-data-dir=" + profile,
                "--window-size=" + width + "," + height);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.PERFORMANCE, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .withEnvironment(timeZone == null ? Map.of() : Map.of("TZ", timeZone))
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort()
                .withLogFile(profile.resolveSibling(profile.getFileName() + "-chromedriver.log").toFile()).build();
        driver = new ChromeDriver(service, options);
    }

    static boolean available() {
        return Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    }

    /**
     * The URL of every request the pages made since the last call (Network.requestWillBeSent
     * in Chromium's performance log, which the browser keeps until it is read).
     */
    List<String> requests() {
        List<String> urls = new ArrayList<>();
        for (LogEntry e : driver.manage().logs().get(LogType.PERFORMANCE)) {
            JsonObject m = JsonParser.parseString(e.getMessage()).getAsJsonObject().getAsJsonObject("message");
            if ("Network.requestWillBeSent".equals(m.get("method").getAsString())) {
                urls.add(m.getAsJsonObject("params").getAsJsonObject("request").get("url").getAsString());
            }
        }
        return urls;
    }

    void open(String url) {
        driver.get(url);
    }

    WebElement find(String css) {
        return driver.findElement(By.cssSelector(css));
    }

    /**
     * Waits up to {@code seconds} for {@code condition} to give a non-null, non-false value. An
     * element that the page redrew between its finding and its reading (the live page replaces its
     * thread rows with each update) is looked for again at the next poll, not a failure: the
     * clean-clone CI of d394ee1 failed ControlRoomWebIT on such a stale cell.
     */
    <T> T await(int seconds, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, Duration.ofSeconds(seconds), Duration.ofMillis(200))
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(condition);
    }

    WebElement awaitElement(int seconds, String css) {
        return await(seconds, d -> {
            var found = d.findElements(By.cssSelector(css));
            return found.isEmpty() || !found.get(0).isDisplayed() ? null : found.get(0);
        });
    }

    /** The viewport as an image. */
    BufferedImage shot() throws IOException {
        return ImageIO.read(new ByteArrayInputStream(driver.getScreenshotAs(OutputType.BYTES)));
    }

    /** One element as an image (scrolled into view first). */
    static BufferedImage shot(WebElement e) throws IOException {
        return ImageIO.read(new ByteArrayInputStream(e.getScreenshotAs(OutputType.BYTES)));
    }

    /** The whole page, however long: the window grows to the page's height for the shot. */
    BufferedImage page(Path keep) throws IOException {
        Number h = (Number) driver.executeScript("return document.documentElement.scrollHeight");
        var size = driver.manage().window().getSize();
        driver.manage().window().setSize(new org.openqa.selenium.Dimension(size.width, Math.min(6000, h.intValue() + 20)));
        try {
            driver.executeScript("window.scrollTo(0, 0)");
            BufferedImage img = shot();
            if (keep != null) {
                Files.createDirectories(keep.toAbsolutePath().getParent());
                ImageIO.write(img, "png", keep.toFile());
            }
            return img;
        } finally {
            driver.manage().window().setSize(size);
        }
    }

    /** Pixels of exactly {@code colour} (#rrggbb) in the image. */
    static int count(BufferedImage img, String colour) {
        int rgb = Integer.parseInt(colour.substring(1), 16), n = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                n += (img.getRGB(x, y) & 0xffffff) == rgb ? 1 : 0;
            }
        }
        return n;
    }

    /** Pixels that are not white: a canvas that drew nothing has none. */
    static int inked(BufferedImage img) {
        int n = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                n += (img.getRGB(x, y) & 0xffffff) != 0xffffff ? 1 : 0;
            }
        }
        return n;
    }

    static void save(BufferedImage img, File file) throws IOException {
        ImageIO.write(img, "png", file);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
