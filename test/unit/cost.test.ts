import { costCurrency, costDetails, costValues, formatCost, normaliseCostInput } from "../../lib/events/cost";

/** Full pipeline as used on write (currency) and read (cost, cost_details). */
function render(input: unknown) {
  const stored = normaliseCostInput(input);
  const { currency_symbol, currency_position } = costCurrency(stored);
  return {
    cost: formatCost(stored, currency_symbol, currency_position),
    cost_details: costDetails(stored, currency_symbol, currency_position),
  };
}

describe("normaliseCostInput", () => {
  it("stores a string as one value", () => {
    expect(normaliseCostInput("10 - 20")).toEqual(["10 - 20"]);
    expect(normaliseCostInput("free, 20$, 30$")).toEqual(["free, 20$, 30$"]);
  });
  it("stores an array one value per element, in order", () => {
    expect(normaliseCostInput(["0$", "20$", "30$"])).toEqual(["0$", "20$", "30$"]);
    expect(normaliseCostInput(["30", 10, "Free"])).toEqual(["30", "10", "Free"]);
  });
  it("stringifies numbers", () => {
    expect(normaliseCostInput(20)).toEqual(["20"]);
    expect(normaliseCostInput(0)).toEqual(["0"]);
    expect(normaliseCostInput(12.5)).toEqual(["12.5"]);
  });
  it("maps empty input to no values", () => {
    expect(normaliseCostInput(null)).toEqual([]);
    expect(normaliseCostInput(undefined)).toEqual([]);
    expect(normaliseCostInput("")).toEqual([]);
    expect(normaliseCostInput([])).toEqual([]);
    expect(normaliseCostInput(["", null, "5"])).toEqual(["5"]);
  });
});

describe("costCurrency (reference examples)", () => {
  it.each<[string | string[], string, string]>([
    ["20$", "$", "postfix"],
    ["$20", "$", "prefix"],
    [["0$", "20$", "30$"], "$", "postfix"],
    ["10", "", ""],
    ["10 - 20", "", ""],
    ["€6.50 - €8.50", "€", "prefix"],
    ["$23", "$", "prefix"],
  ])("%j → %j %j", (input, symbol, position) => {
    expect(costCurrency(normaliseCostInput(input))).toEqual({ currency_symbol: symbol, currency_position: position });
  });
});

describe("costCurrency (plugin Cost_Utils cases)", () => {
  it.each<[string | string[], string, string]>([
    ["foo", "", ""],
    ["foo bar", "", ""],
    ["2$", "$", "postfix"],
    ["$2", "$", "prefix"],
    ["$ 2", "$", "prefix"],
    ["2 $", "$", "postfix"],
    ["free, 20$, 30$", "$", "postfix"],
    [["free", "20$", "30$"], "$", "postfix"],
    [["free", "20¥", "30$"], "", ""],
    [["20¥", "30$"], "", ""],
    [["free", "20¥"], "¥", "postfix"],
    ["20 EUR", "EUR", "postfix"],
    ["25,55€", "€", "postfix"],
  ])("%j → %j %j", (input, symbol, position) => {
    expect(costCurrency(normaliseCostInput(input))).toEqual({ currency_symbol: symbol, currency_position: position });
  });

  it("keeps the symbol but no position when positions disagree", () => {
    expect(costCurrency(["$10", "20$"])).toEqual({ currency_symbol: "$", currency_position: "" });
  });

  it("is empty for no cost", () => {
    expect(costCurrency([])).toEqual({ currency_symbol: "", currency_position: "" });
  });
});

describe("costValues", () => {
  it.each<[string | string[], string[]]>([
    ["20$", ["20"]],
    [["0$", "20$", "30$"], ["0", "20", "30"]],
    ["€6.50 - €8.50", ["6.50", "8.50"]],
    ["Free", ["free"]],
    ["Pay what you want", ["pay-what-you-want"]],
    ["25.55", ["25.55"]],
    ["25,55", ["25.55"]],
    ["1,500", ["1500"]],
    ["1,500.50", ["1500.50"]],
    ["1,000,000", ["1000000"]],
    ["10 - 20", ["10", "20"]],
    ["30, 10, 20", ["10", "20", "30"]],
    [["30", "10", "20"], ["10", "20", "30"]],
    [["10", "10$", "20", "10"], ["10", "20"]],
    [["free", "20$", "30$"], ["free", "20", "30"]],
    [[], []],
  ])("%j → %j", (input, expected) => {
    expect(costValues(normaliseCostInput(input))).toEqual(expected);
  });

  it("sorts numerically, not lexically", () => {
    expect(costValues(["100", "9", "25.5"])).toEqual(["9", "25.5", "100"]);
  });
});

describe("formatCost", () => {
  it("is empty without stored values", () => {
    expect(formatCost([], "", "")).toBe("");
    expect(formatCost([], "$", "prefix")).toBe("");
  });

  it("returns a single non-numeric value as stored", () => {
    expect(formatCost(["Free"], "", "")).toBe("Free");
    expect(formatCost(["Donation"], "", "")).toBe("Donation");
  });

  it("applies the stored symbol and position", () => {
    expect(formatCost(["20$"], "$", "postfix")).toBe("20$");
    expect(formatCost(["$23"], "$", "prefix")).toBe("$23");
    expect(formatCost(["12"], "€", "postfix")).toBe("12€");
  });

  it("defaults to $ prefix", () => {
    expect(formatCost(["10"], "", "")).toBe("$10");
    expect(formatCost(["10"], "€", "")).toBe("€10");
    expect(formatCost(["10"], "", "postfix")).toBe("10$");
  });

  it("names 0 Free", () => {
    expect(formatCost(["0"], "", "")).toBe("Free");
    expect(formatCost(["0.00"], "$", "prefix")).toBe("Free");
  });

  it("renders a range with an EN DASH", () => {
    expect(formatCost(["0$", "20$", "30$"], "$", "postfix")).toBe("Free \u2013 30$");
    expect(formatCost(["10 - 20"], "", "")).toBe("$10 \u2013 $20");
    expect(formatCost(["€6.50 - €8.50"], "€", "prefix")).toBe("€6.50 \u2013 €8.50");
  });

  it("uses a single bound when min equals max", () => {
    expect(formatCost(["10", "10.00"], "", "")).toBe("$10");
  });

  it("ignores words when numbers are present", () => {
    expect(formatCost(["free", "20$", "30$"], "$", "postfix")).toBe("20$ \u2013 30$");
  });

  it("falls back to the first wordy value when no number exists", () => {
    expect(formatCost(["Donation", "Pay at the door"], "", "")).toBe("Donation");
  });
});

describe("costDetails and full pipeline", () => {
  it("has the reference key order", () => {
    expect(Object.keys(costDetails(["20$"], "$", "postfix"))).toEqual([
      "currency_symbol", "currency_code", "currency_position", "values",
    ]);
  });

  it.each<[unknown, string, object]>([
    ["20$", "20$", { currency_symbol: "$", currency_code: "", currency_position: "postfix", values: ["20"] }],
    ["$20", "$20", { currency_symbol: "$", currency_code: "", currency_position: "prefix", values: ["20"] }],
    [["0$", "20$", "30$"], "Free \u2013 30$", { currency_symbol: "$", currency_code: "", currency_position: "postfix", values: ["0", "20", "30"] }],
    ["10", "$10", { currency_symbol: "", currency_code: "", currency_position: "", values: ["10"] }],
    [10, "$10", { currency_symbol: "", currency_code: "", currency_position: "", values: ["10"] }],
    ["10 - 20", "$10 \u2013 $20", { currency_symbol: "", currency_code: "", currency_position: "", values: ["10", "20"] }],
    ["€6.50 - €8.50", "€6.50 \u2013 €8.50", { currency_symbol: "€", currency_code: "", currency_position: "prefix", values: ["6.50", "8.50"] }],
    ["Free", "Free", { currency_symbol: "", currency_code: "", currency_position: "", values: ["free"] }],
    ["0", "Free", { currency_symbol: "", currency_code: "", currency_position: "", values: ["0"] }],
    [null, "", { currency_symbol: "", currency_code: "", currency_position: "", values: [] }],
    ["", "", { currency_symbol: "", currency_code: "", currency_position: "", values: [] }],
  ])("%j → cost %j", (input, cost, details) => {
    const out = render(input);
    expect(out.cost).toBe(cost);
    expect(out.cost_details).toEqual(details);
  });
});
