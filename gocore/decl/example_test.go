package decl_test

import (
	"encoding/json"
	"fmt"

	"amlasandbox/gocore/decl"
)

func Example() {
	set := decl.NewSet([]decl.Tool{{
		Name:        "get_weather",
		Description: "The weather in a city.",
		InputSchema: json.RawMessage(`{"type": "object", "properties": {
			"city": {"type": "string", "description": "The city's name."},
			"units": {"type": "string", "enum": ["c", "f"], "default": "c"}},
			"required": ["city"]}`),
	}})
	fmt.Println(set.TypeScript())
	fmt.Print(set.Python())
	// Output:
	// type GetWeatherInput = {
	//   /** The city's name. */
	//   city: string;
	//   /** Default: "c". */
	//   units?: "c" | "f";
	// };
	// /** The weather in a city. */
	// declare function get_weather(input: GetWeatherInput): Promise<unknown>;
	//
	// from typing import Any, Literal
	//
	// async def get_weather(*, city: str, units: Literal["c", "f"] = "c") -> Any:
	//     """The weather in a city.
	//
	//     Args:
	//         city: The city's name.
	//         units: Default: "c".
	//     """
}
