package io.granary.gateway.console;

import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console in a real headless Chromium (Debian's, through its chromedriver), against the gateway and real
 * services: it lists a dataset, a preload started from its page moves its bar to 100%, and freeing the cache drops
 * the dataset to 0%. Screenshots of each step are kept in {@code target/console-screenshots}. Without chromium the
 * test is skipped with a message, unless {@code GRANARY_BROWSER=required} (as {@code .ci/run} sets).
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target/console-screenshots");
    /** At the preload-service's 8 MiB/s: about six seconds of loading to watch (the page polls every 2 s). */
    private static final int FILES = 40;
    private static final int FILE_SIZE = 1200 * 1024;

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "granary.allowed-roots")
    Path root;

    private WebDriver browser;
    private WebDriverWait wait;

    @BeforeAll
    void aDatasetAndABrowser() throws IOException {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!installed && "required".equals(System.getenv("GRANARY_BROWSER"))) {
            throw new IllegalStateException("GRANARY_BROWSER=required, but chromium or chromedriver is missing: "
                    + "apt-get install chromium chromium-driver");
        }
        Assumptions.assumeTrue(installed, "no chromium and chromedriver here (apt-get install chromium "
                + "chromium-driver): the console's browser test is skipped");
        Path gallery = Files.createDirectories(root.resolve("gallery/photos"));
        Random random = new Random(3);
        byte[] content = new byte[FILE_SIZE];
        for (int i = 0; i < FILES; i++) {
            random.nextBytes(content);
            Files.write(gallery.resolve("p" + i + ".jpg"), content);
        }
        Datasets.createBound(gateway, Datasets.spec("gallery", "1MiB", Datasets.localMount(root.resolve("gallery"))));
        Files.createDirectories(SCREENSHOTS);

        ChromeDriverService driver = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--window-size=1280,900");
        browser = new ChromeDriver(driver, options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(30));
    }

    @AfterAll
    void closeTheBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void aPreloadFromThePageFillsTheCacheAndFreeingItEmptiesIt() throws IOException, InterruptedException {
        browser.get(gateway.resolve("/console").toString());
        signIn("not-a-token");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("error"), "the token was refused"));
        screenshot("0-refused");

        signIn(Identities.ADMIN.token());
        WebElement cached = wait.until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("table#datasets tr[data-dataset='gallery'] td.cached-percentage")));
        wait.until(driver -> "0%".equals(cached.getText()));
        assertThat(browser.findElement(By.cssSelector("tr[data-dataset='gallery'] td.phase")).getText())
                .isEqualTo("Bound");
        screenshot("1-datasets");

        browser.findElement(By.cssSelector("tr[data-dataset='gallery'] a")).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("preload-all"))).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();

        By load = By.cssSelector("table#dataloads tr[data-id]");
        WebElement row = wait.until(ExpectedConditions.presenceOfElementLocated(load));
        List<Integer> bar = new ArrayList<>();
        boolean shownLoading = false;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!"Complete".equals(row.getAttribute("data-phase")) && System.nanoTime() < deadline) {
            int value = Integer.parseInt(row.findElement(By.cssSelector("progress.load-progress"))
                    .getAttribute("value"));
            bar.add(value);
            if (!shownLoading && value > 0 && value < 100) {
                screenshot("2-loading");
                shownLoading = true;
            }
            Thread.sleep(100);
        }
        assertThat(row.getAttribute("data-phase")).isEqualTo("Complete");
        assertThat(row.findElement(By.cssSelector("progress.load-progress")).getAttribute("value")).isEqualTo("100");
        assertThat(bar).as("the bar as it was drawn").isSorted().anyMatch(value -> value > 0 && value < 100);
        wait.until(ExpectedConditions.textToBe(By.id("dataset-cached"), "100%"));
        screenshot("3-loaded");

        browser.findElement(By.id("free-all")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.textToBe(By.id("dataset-cached"), "0%"));
        screenshot("4-freed");

        browser.findElement(By.linkText("Datasets")).click();
        wait.until(ExpectedConditions.textToBe(
                By.cssSelector("table#datasets tr[data-dataset='gallery'] td.cached-percentage"), "0%"));
        assertThat(browser.findElement(By.id("error")).isDisplayed()).isFalse();
    }

    private void signIn(String token) {
        WebElement field = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        field.clear();
        field.sendKeys(token);
        browser.findElement(By.id("sign-in")).click();
    }

    private void screenshot(String name) throws IOException {
        Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(shot, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
