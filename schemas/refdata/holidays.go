package refdata

// Market holiday calendars, 2025–2027, for every market the generator uses.
//
// A settlement date is checked against the holidays of the security's country
// (contract section 4), so these are the days the market is closed for
// trading and settlement, on weekdays: the exchange's published closures,
// which follow the country's gazetted public holidays (with the local rule
// for a holiday falling on a weekend) plus exchange-only closures (Tokyo's
// Dec 31–Jan 3, Xetra's Dec 24 and Dec 31). Half-day sessions (Hong Kong's
// Christmas Eve, New Year's Eve and Lunar New Year's Eve) are open days.
// Weekend dates are left out: every weekend is already a non-business day.
//
// Sources: the exchanges' holiday calendars (SGX, HKEX, JPX, NYSE, LSE,
// Deutsche Börse Xetra, Euronext, ASX) and the public holiday gazettes behind
// them (Singapore MOM, Hong Kong general holidays, Japan Cabinet Office
// including the equinox days of the national astronomical observatory, UK
// GOV.UK bank holidays for England and Wales), cross-checked against the
// exchange_calendars and holidays Python packages. Moon-calendar dates of 2027
// (Singapore's Hari Raya, Vesak, Deepavali; Hong Kong's lunar festivals) are
// the gazetted ones as known in late 2026.
var marketHolidays = map[string][]string{
	// Singapore Exchange: Singapore public holidays; one falling on a Sunday
	// moves to the Monday, one on a Saturday is not replaced.
	// Weekend: 2025-05-03 Polling Day, 2025-06-07 Hari Raya Haji, 2025-08-09
	// National Day, 2026-03-21 Hari Raya Puasa, 2027-02-06 Chinese New Year,
	// 2027-05-01 Labour Day, 2027-12-25 Christmas Day.
	"SG": {
		"2025-01-01", // New Year's Day
		"2025-01-29", // Chinese New Year
		"2025-01-30", // Chinese New Year, second day
		"2025-03-31", // Hari Raya Puasa
		"2025-04-18", // Good Friday
		"2025-05-01", // Labour Day
		"2025-05-12", // Vesak Day
		"2025-10-20", // Deepavali
		"2025-12-25", // Christmas Day
		"2026-01-01", // New Year's Day
		"2026-02-17", // Chinese New Year
		"2026-02-18", // Chinese New Year, second day
		"2026-04-03", // Good Friday
		"2026-05-01", // Labour Day
		"2026-05-27", // Hari Raya Haji
		"2026-06-01", // Vesak Day (31 May is a Sunday)
		"2026-08-10", // National Day (9 Aug is a Sunday)
		"2026-11-09", // Deepavali (8 Nov is a Sunday)
		"2026-12-25", // Christmas Day
		"2027-01-01", // New Year's Day
		"2027-02-08", // Chinese New Year, second day (7 Feb is a Sunday)
		"2027-03-10", // Hari Raya Puasa
		"2027-03-26", // Good Friday
		"2027-05-17", // Hari Raya Haji
		"2027-05-20", // Vesak Day
		"2027-08-09", // National Day
		"2027-10-28", // Deepavali
	},
	// Hong Kong Exchanges: Hong Kong general holidays.
	// Weekend: 2025-04-19 day following Good Friday, 2025-05-31 Tuen Ng,
	// 2026-04-04 day following Good Friday, 2026-09-26 day following
	// Mid-Autumn, 2026-12-26 first weekday after Christmas, 2027-02-06 Lunar
	// New Year's Day, 2027-03-27 day following Good Friday, 2027-05-01 Labour
	// Day, 2027-12-25 Christmas Day.
	"HK": {
		"2025-01-01", // The first day of January
		"2025-01-29", // Lunar New Year's Day
		"2025-01-30", // The second day of Lunar New Year
		"2025-01-31", // The third day of Lunar New Year
		"2025-04-04", // Ching Ming Festival
		"2025-04-18", // Good Friday
		"2025-04-21", // Easter Monday
		"2025-05-01", // Labour Day
		"2025-05-05", // Birthday of the Buddha
		"2025-07-01", // HKSAR Establishment Day
		"2025-10-01", // National Day
		"2025-10-07", // The day following the Chinese Mid-Autumn Festival
		"2025-10-29", // Chung Yeung Festival
		"2025-12-25", // Christmas Day
		"2025-12-26", // The first weekday after Christmas Day
		"2026-01-01", // The first day of January
		"2026-02-17", // Lunar New Year's Day
		"2026-02-18", // The second day of Lunar New Year
		"2026-02-19", // The third day of Lunar New Year
		"2026-04-03", // Good Friday
		"2026-04-06", // The day following Ching Ming Festival (5 Apr is Easter Sunday)
		"2026-04-07", // The day following Easter Monday
		"2026-05-01", // Labour Day
		"2026-05-25", // The day following the Birthday of the Buddha (24 May is a Sunday)
		"2026-06-19", // Tuen Ng Festival
		"2026-07-01", // HKSAR Establishment Day
		"2026-10-01", // National Day
		"2026-10-19", // The day following Chung Yeung Festival (18 Oct is a Sunday)
		"2026-12-25", // Christmas Day
		"2027-01-01", // The first day of January
		"2027-02-08", // The third day of Lunar New Year
		"2027-02-09", // The fourth day of Lunar New Year (for 7 Feb, a Sunday)
		"2027-03-26", // Good Friday
		"2027-03-29", // Easter Monday
		"2027-04-05", // Ching Ming Festival
		"2027-05-13", // Birthday of the Buddha
		"2027-06-09", // Tuen Ng Festival
		"2027-07-01", // HKSAR Establishment Day
		"2027-09-16", // The day following the Chinese Mid-Autumn Festival
		"2027-10-01", // National Day
		"2027-10-08", // Chung Yeung Festival
		"2027-12-27", // The first weekday after Christmas Day
	},
	// Japan Exchange Group (Tokyo): national holidays, substitute holidays
	// (a holiday on a Sunday moves to the next non-holiday), the "citizens'
	// holiday" between two holidays, and the market holidays Dec 31–Jan 3.
	"JP": {
		"2025-01-01", // New Year's Day
		"2025-01-02", // market holiday (New Year)
		"2025-01-03", // market holiday (New Year)
		"2025-01-13", // Coming of Age Day
		"2025-02-11", // National Foundation Day
		"2025-02-24", // substitute holiday (Emperor's Birthday, 23 Feb, is a Sunday)
		"2025-03-20", // Vernal Equinox Day
		"2025-04-29", // Showa Day
		"2025-05-05", // Children's Day
		"2025-05-06", // substitute holiday (Greenery Day, 4 May, is a Sunday)
		"2025-07-21", // Marine Day
		"2025-08-11", // Mountain Day
		"2025-09-15", // Respect for the Aged Day
		"2025-09-23", // Autumnal Equinox Day
		"2025-10-13", // Sports Day
		"2025-11-03", // Culture Day
		"2025-11-24", // substitute holiday (Labour Thanksgiving Day, 23 Nov, is a Sunday)
		"2025-12-31", // market holiday (year end)
		"2026-01-01", // New Year's Day
		"2026-01-02", // market holiday (New Year)
		"2026-01-12", // Coming of Age Day
		"2026-02-11", // National Foundation Day
		"2026-02-23", // Emperor's Birthday
		"2026-03-20", // Vernal Equinox Day
		"2026-04-29", // Showa Day
		"2026-05-04", // Greenery Day
		"2026-05-05", // Children's Day
		"2026-05-06", // substitute holiday (Constitution Memorial Day, 3 May, is a Sunday)
		"2026-07-20", // Marine Day
		"2026-08-11", // Mountain Day
		"2026-09-21", // Respect for the Aged Day
		"2026-09-22", // citizens' holiday (between two holidays)
		"2026-09-23", // Autumnal Equinox Day
		"2026-10-12", // Sports Day
		"2026-11-03", // Culture Day
		"2026-11-23", // Labour Thanksgiving Day
		"2026-12-31", // market holiday (year end)
		"2027-01-01", // New Year's Day
		"2027-01-11", // Coming of Age Day
		"2027-02-11", // National Foundation Day
		"2027-02-23", // Emperor's Birthday
		"2027-03-22", // substitute holiday (Vernal Equinox Day, 21 Mar, is a Sunday)
		"2027-04-29", // Showa Day
		"2027-05-03", // Constitution Memorial Day
		"2027-05-04", // Greenery Day
		"2027-05-05", // Children's Day
		"2027-07-19", // Marine Day
		"2027-08-11", // Mountain Day
		"2027-09-20", // Respect for the Aged Day
		"2027-09-23", // Autumnal Equinox Day
		"2027-10-11", // Sports Day
		"2027-11-03", // Culture Day
		"2027-11-23", // Labour Thanksgiving Day
		"2027-12-31", // market holiday (year end)
	},
	// New York Stock Exchange: a holiday on a Saturday closes the Friday
	// before, on a Sunday the Monday after (except New Year's Day on a
	// Saturday, which closes nothing). Columbus Day and Veterans Day are open.
	"US": {
		"2025-01-01", // New Year's Day
		"2025-01-09", // National Day of Mourning for President Jimmy Carter
		"2025-01-20", // Martin Luther King Jr. Day
		"2025-02-17", // Washington's Birthday
		"2025-04-18", // Good Friday
		"2025-05-26", // Memorial Day
		"2025-06-19", // Juneteenth National Independence Day
		"2025-07-04", // Independence Day
		"2025-09-01", // Labor Day
		"2025-11-27", // Thanksgiving Day
		"2025-12-25", // Christmas Day
		"2026-01-01", // New Year's Day
		"2026-01-19", // Martin Luther King Jr. Day
		"2026-02-16", // Washington's Birthday
		"2026-04-03", // Good Friday
		"2026-05-25", // Memorial Day
		"2026-06-19", // Juneteenth National Independence Day
		"2026-07-03", // Independence Day observed (4 Jul is a Saturday)
		"2026-09-07", // Labor Day
		"2026-11-26", // Thanksgiving Day
		"2026-12-25", // Christmas Day
		"2027-01-01", // New Year's Day
		"2027-01-18", // Martin Luther King Jr. Day
		"2027-02-15", // Washington's Birthday
		"2027-03-26", // Good Friday
		"2027-05-31", // Memorial Day
		"2027-06-18", // Juneteenth observed (19 Jun is a Saturday)
		"2027-07-05", // Independence Day observed (4 Jul is a Sunday)
		"2027-09-06", // Labor Day
		"2027-11-25", // Thanksgiving Day
		"2027-12-24", // Christmas Day observed (25 Dec is a Saturday)
	},
	// London Stock Exchange: bank holidays of England and Wales; one on a
	// weekend moves to the next weekday that is not already a holiday.
	"GB": {
		"2025-01-01", // New Year's Day
		"2025-04-18", // Good Friday
		"2025-04-21", // Easter Monday
		"2025-05-05", // Early May bank holiday
		"2025-05-26", // Spring bank holiday
		"2025-08-25", // Summer bank holiday
		"2025-12-25", // Christmas Day
		"2025-12-26", // Boxing Day
		"2026-01-01", // New Year's Day
		"2026-04-03", // Good Friday
		"2026-04-06", // Easter Monday
		"2026-05-04", // Early May bank holiday
		"2026-05-25", // Spring bank holiday
		"2026-08-31", // Summer bank holiday
		"2026-12-25", // Christmas Day
		"2026-12-28", // Boxing Day, substitute day (26 Dec is a Saturday)
		"2027-01-01", // New Year's Day
		"2027-03-26", // Good Friday
		"2027-03-29", // Easter Monday
		"2027-05-03", // Early May bank holiday
		"2027-05-31", // Spring bank holiday
		"2027-08-30", // Summer bank holiday
		"2027-12-27", // Christmas Day, substitute day (25 Dec is a Saturday)
		"2027-12-28", // Boxing Day, substitute day (26 Dec is a Sunday)
	},
	// Deutsche Börse Xetra (Frankfurt): TARGET2 closing days plus Christmas
	// Eve and New Year's Eve; regional holidays (Whit Monday, German Unity Day)
	// are trading days. No weekend substitutes.
	"DE": {
		"2025-01-01", // New Year's Day
		"2025-04-18", // Good Friday
		"2025-04-21", // Easter Monday
		"2025-05-01", // Labour Day
		"2025-12-24", // Christmas Eve
		"2025-12-25", // Christmas Day
		"2025-12-26", // Boxing Day (Second Christmas Day)
		"2025-12-31", // New Year's Eve
		"2026-01-01", // New Year's Day
		"2026-04-03", // Good Friday
		"2026-04-06", // Easter Monday
		"2026-05-01", // Labour Day
		"2026-12-24", // Christmas Eve
		"2026-12-25", // Christmas Day
		"2026-12-31", // New Year's Eve
		"2027-01-01", // New Year's Day
		"2027-03-26", // Good Friday
		"2027-03-29", // Easter Monday
		"2027-12-24", // Christmas Eve
		"2027-12-31", // New Year's Eve
	},
	// Euronext Paris: the TARGET2 closing days; French public holidays such
	// as 14 July are trading days. No weekend substitutes.
	"FR": {
		"2025-01-01", // New Year's Day
		"2025-04-18", // Good Friday
		"2025-04-21", // Easter Monday
		"2025-05-01", // Labour Day
		"2025-12-25", // Christmas Day
		"2025-12-26", // Boxing Day
		"2026-01-01", // New Year's Day
		"2026-04-03", // Good Friday
		"2026-04-06", // Easter Monday
		"2026-05-01", // Labour Day
		"2026-12-25", // Christmas Day
		"2027-01-01", // New Year's Day
		"2027-03-26", // Good Friday
		"2027-03-29", // Easter Monday
	},
	// ASX (Sydney): national holidays as observed in New South Wales, whose
	// calendar the exchange follows; Anzac Day on a weekend is not replaced.
	"AU": {
		"2025-01-01", // New Year's Day
		"2025-01-27", // Australia Day observed (26 Jan is a Sunday)
		"2025-04-18", // Good Friday
		"2025-04-21", // Easter Monday
		"2025-04-25", // Anzac Day
		"2025-06-09", // King's Birthday
		"2025-12-25", // Christmas Day
		"2025-12-26", // Boxing Day
		"2026-01-01", // New Year's Day
		"2026-01-26", // Australia Day
		"2026-04-03", // Good Friday
		"2026-04-06", // Easter Monday
		"2026-06-08", // King's Birthday
		"2026-12-25", // Christmas Day
		"2026-12-28", // Boxing Day observed (26 Dec is a Saturday)
		"2027-01-01", // New Year's Day
		"2027-01-26", // Australia Day
		"2027-03-26", // Good Friday
		"2027-03-29", // Easter Monday
		"2027-06-14", // King's Birthday
		"2027-12-27", // Christmas Day observed (25 Dec is a Saturday)
		"2027-12-28", // Boxing Day observed (26 Dec is a Sunday)
	},
}
