"""Quick start: scripts with tools in JavaScript, Python and the shell, run in
the sandbox on default settings.

Run: python examples/quick_start.py
"""

from amla_sandbox import create_sandbox_tool


def get_weather(city: str) -> dict:
    """Current weather for a city."""
    temps = {"SF": 62, "Tokyo": 22, "Paris": 18}
    return {"city": city, "temp": temps.get(city, 20)}


def convert_temperature(celsius: float) -> float:
    """Convert Celsius to Fahrenheit."""
    return celsius * 9 / 5 + 32


def main() -> None:
    sandbox = create_sandbox_tool(tools=[get_weather, convert_temperature])

    # JavaScript: one script instead of many tool calls.
    js = sandbox.run(
        """
        const cities = ["SF", "Tokyo", "Paris"];
        const reports = await Promise.all(cities.map(city => get_weather({city})));
        for (const r of reports) {
            const f = await convert_temperature({celsius: r.temp});
            console.log(`${r.city}: ${r.temp}°C = ${f}°F`);
        }
        await fs.writeFile("/workspace/report.json", JSON.stringify(reports));
        return reports.length + " cities";
        """,
        language="javascript",
    )
    print(js)

    # Python: the same tools, called with keyword arguments, and the same files.
    py = sandbox.run(
        """
import json
reports = json.load(open("/workspace/report.json"))
warmest = max(reports, key=lambda r: r["temp"])
print(f"warmest: {warmest['city']} at {convert_temperature(celsius=warmest['temp'])}°F")
""",
        language="python",
    )
    print(py)

    # Shell: the same tools and the same files, through pipelines.
    sh = sandbox.run(
        "cat /workspace/report.json | jq -r '.[] | select(.temp < 25) | .city' | sort\n"
        "tool get_weather --city Tokyo | jq .temp",
        language="shell",
    )
    print(sh)

    # Limits: runaway code is stopped, and the sandbox stays usable.
    limited = create_sandbox_tool(timeout=1)
    print(limited.run("while (true) {}", language="javascript"))
    print(limited.run("console.log('still works')", language="javascript"))


if __name__ == "__main__":
    main()
