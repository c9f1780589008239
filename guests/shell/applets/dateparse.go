package applets

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseDate reads a date the way GNU date -d does: a string of items in
// any order, each optional —
//
//	calendar date   2024-06-01, 24-6-1, 6/1/2024, 6/1, 2024/06/01, June 1 2024,
//	                1 June 2024, 01-Jun-2024, 20240601
//	time of day     14:30, 14:30:05.25, 2pm, 2:30 pm, 1430; with a zone
//	                Z, UTC, GMT, EST..PDT, +05:30, +0530, -05
//	day of week     monday, next friday, last sun, this tue, third friday
//	relative        +1 day, -2 weeks, 3 hours ago, next month, last year,
//	                fortnight, yesterday, tomorrow, today, now
//	seconds         @1700000000[.5] (alone)
//
// with GNU's rules for combining them: a date or a day of the week without
// a time means midnight; a day of the week is ignored when a date is
// given; day names move forward (next: strictly after today, last:
// strictly before); relative years, months and days are added to the
// calendar date (Jan 31 + 1 month is Mar 2 or 3, as in GNU) and hours,
// minutes and seconds to the instant; "ago" negates the item before it.
// A signed number right after a time is a zone offset, as in GNU, so
// "10:00 +1 hour" is 10:00 at UTC+1 plus an hour. now is the time relative
// items start from when no date is given; the sandbox's zone is UTC.
func parseDate(s string, now time.Time) (time.Time, error) {
	toks, err := lexDate(s)
	if err != nil {
		return time.Time{}, err
	}
	d := &dateParse{toks: toks}
	if err := d.parse(); err != nil {
		return time.Time{}, err
	}
	return d.resolve(now)
}

// dateTok is one token of a date string.
type dateTok struct {
	kind   byte // 'n' number, 'w' word, else the punctuation character
	sign   int  // for numbers: 0 unsigned, +1 or -1 when written with a sign
	val    int64
	digits int
	word   string
}

// lexDate splits s into numbers (a sign directly before digits makes a
// signed number), lower-cased words (letters and dots: "a.m.") and
// punctuation. Parenthesised comments are skipped, as GNU does.
func lexDate(s string) ([]dateTok, error) {
	var toks []dateTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ',':
			i++
		case c == '(':
			depth := 0
			for ; i < len(s); i++ {
				if s[i] == '(' {
					depth++
				} else if s[i] == ')' {
					depth--
					if depth == 0 {
						i++
						break
					}
				}
			}
		case c >= '0' && c <= '9' || (c == '+' || c == '-') && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			t := dateTok{kind: 'n'}
			if c == '+' || c == '-' {
				t.sign = 1
				if c == '-' {
					t.sign = -1
				}
				i++
			}
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j-i > 18 {
				return nil, fmt.Errorf("number too long")
			}
			t.val, _ = strconv.ParseInt(s[i:j], 10, 64)
			t.digits = j - i
			toks = append(toks, t)
			i = j
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] == '.') {
				j++
			}
			// Dots are dropped: "a.m." is am, "Wed." is wed.
			w := strings.ToLower(strings.ReplaceAll(s[i:j], ".", ""))
			toks = append(toks, dateTok{kind: 'w', word: w})
			i = j
		default:
			toks = append(toks, dateTok{kind: c})
			i++
		}
	}
	return toks, nil
}

// dateParse collects the items of a date string.
type dateParse struct {
	toks []dateTok
	pos  int

	epoch                *time.Time
	dateSeen, yearSeen   bool
	year, month, day     int
	timeSeen             bool
	hour, min, sec, nsec int
	zoneSeen             bool
	zoneOffset           int // seconds east of UTC
	daySeen              bool
	dayOrdinal, weekday  int
	relY, relM, relD     int
	relSec               int64
	relSeen              bool
	lastRel              *dateRel
	lastRelNegatable     bool
}

// dateRel is the last relative item read, so "ago" can negate it.
type dateRel struct {
	y, m, d int
	sec     int64
}

var dateMonths = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12,
}

var dateDays = map[string]int{
	"sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6,
	"sun": 0, "mon": 1, "tue": 2, "tues": 2, "wed": 3, "wednes": 3, "thu": 4, "thur": 4, "thurs": 4,
	"fri": 5, "sat": 6,
}

// dateOrdinals are the words GNU accepts before a unit or a day name.
var dateOrdinals = map[string]int{
	"last": -1, "this": 0, "next": 1, "first": 1, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
	"seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
}

// dateZones are the zone names GNU knows, in seconds east of UTC.
var dateZones = map[string]int{
	"utc": 0, "gmt": 0, "ut": 0, "z": 0, "wet": 0, "bst": 3600, "cet": 3600, "met": 3600,
	"eet": 7200, "est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
}

// dateUnit returns the length of a relative unit: months (for years and
// months), days, or seconds.
func dateUnit(w string) (y, m, d int, sec int64, ok bool) {
	switch strings.TrimSuffix(w, "s") {
	case "year":
		return 1, 0, 0, 0, true
	case "month":
		return 0, 1, 0, 0, true
	case "fortnight":
		return 0, 0, 14, 0, true
	case "week":
		return 0, 0, 7, 0, true
	case "day":
		return 0, 0, 1, 0, true
	case "hour":
		return 0, 0, 0, 3600, true
	case "minute", "min":
		return 0, 0, 0, 60, true
	case "second", "sec":
		return 0, 0, 0, 1, true
	}
	return 0, 0, 0, 0, false
}

func (d *dateParse) peek(k int) dateTok {
	if d.pos+k < len(d.toks) {
		return d.toks[d.pos+k]
	}
	return dateTok{}
}

func (d *dateParse) isWord(k int, words ...string) bool {
	t := d.peek(k)
	if t.kind != 'w' {
		return false
	}
	for _, w := range words {
		if t.word == w {
			return true
		}
	}
	return false
}

var errBadDate = fmt.Errorf("invalid date")

func (d *dateParse) parse() error {
	if d.peek(0).kind == '@' {
		// @SECONDS[.FRACTION], alone.
		n := d.peek(1)
		if n.kind != 'n' {
			return errBadDate
		}
		sec, nsec := n.val, int64(0)
		if n.sign < 0 {
			sec = -sec
		}
		d.pos += 2
		if d.peek(0).kind == '.' && d.peek(1).kind == 'n' && d.peek(1).sign == 0 {
			nsec = fracNanos(d.peek(1))
			if n.sign < 0 {
				nsec = -nsec
			}
			d.pos += 2
		}
		if d.pos != len(d.toks) {
			return errBadDate
		}
		t := time.Unix(sec, nsec).UTC()
		d.epoch = &t
		return nil
	}
	for d.pos < len(d.toks) {
		if err := d.item(); err != nil {
			return err
		}
	}
	return nil
}

// fracNanos reads the digits after a decimal point as nanoseconds.
func fracNanos(t dateTok) int64 {
	s := fmt.Sprintf("%0*d", t.digits, t.val)
	s = (s + "000000000")[:9]
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// item reads one item.
func (d *dateParse) item() error {
	t := d.peek(0)
	switch t.kind {
	case 'n':
		return d.numberItem()
	case 'w':
		return d.wordItem()
	}
	return errBadDate
}

func (d *dateParse) setDate(y, m, day int, haveYear bool) error {
	if d.dateSeen {
		return errBadDate
	}
	d.dateSeen = true
	d.month, d.day = m, day
	if haveYear {
		d.yearSeen = true
		d.year = y
	}
	return nil
}

// fixYear applies POSIX's rule for two-digit years.
func fixYear(t dateTok) int {
	y := int(t.val)
	if t.digits <= 2 {
		if y < 69 {
			return 2000 + y
		}
		return 1900 + y
	}
	return y
}

// numberItem reads an item that starts with a number.
func (d *dateParse) numberItem() error {
	t := d.peek(0)
	next := d.peek(1)
	switch {
	case t.sign == 0 && next.kind == ':':
		return d.timeItem()
	case t.sign == 0 && next.kind == 'n' && next.sign < 0 && d.peek(2).kind == 'n' && d.peek(2).sign < 0:
		// ISO 8601: YYYY-MM-DD, with an optional T and time after it.
		if err := d.setDate(fixYear(t), int(next.val), int(d.peek(2).val), true); err != nil {
			return err
		}
		d.pos += 3
		if d.isWord(0, "t") && d.peek(1).kind == 'n' {
			d.pos++
			return d.timeItem()
		}
		return nil
	case t.sign == 0 && next.kind == '/':
		// M/D, M/D/Y or Y/M/D.
		a, b := t, d.peek(2)
		if b.kind != 'n' || b.sign != 0 {
			return errBadDate
		}
		d.pos += 3
		if d.peek(0).kind == '/' && d.peek(1).kind == 'n' {
			c := d.peek(1)
			d.pos += 2
			if a.digits >= 4 {
				return d.setDate(int(a.val), int(b.val), int(c.val), true)
			}
			return d.setDate(fixYear(c), int(a.val), int(b.val), true)
		}
		return d.setDate(0, int(a.val), int(b.val), false)
	case t.sign == 0 && next.kind == 'w' && dateMonths[next.word] != 0:
		// D MONTH [YEAR], D-MON-YYYY.
		d.pos += 2
		y := d.peek(0)
		if y.kind == 'n' && (y.sign < 0 || y.sign == 0 && y.digits >= 3) {
			d.pos++
			return d.setDate(fixYear(y), dateMonths[next.word], int(t.val), true)
		}
		return d.setDate(0, dateMonths[next.word], int(t.val), false)
	case t.sign == 0 && next.kind == '-' && d.isWord(2, "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"):
		// D-MON-YYYY with the first dash on its own.
		m := dateMonths[d.peek(2).word]
		d.pos += 3
		y := d.peek(0)
		if y.kind == 'n' {
			d.pos++
			return d.setDate(fixYear(y), m, int(t.val), true)
		}
		return d.setDate(0, m, int(t.val), false)
	case t.sign == 0 && next.kind == 'w' && (next.word == "am" || next.word == "pm"):
		return d.timeItem()
	case next.kind == 'w':
		if y, m, day, sec, ok := dateUnit(next.word); ok {
			n := int(t.val)
			if t.sign < 0 {
				n = -n
			}
			d.pos += 2
			d.addRel(y*n, m*n, day*n, sec*int64(n))
			return nil
		}
		if _, ok := dateDays[next.word]; ok && t.sign == 0 {
			d.pos++
			return d.dayItem(int(t.val))
		}
	}
	if t.sign != 0 {
		return errBadDate
	}
	// A pure number: the year after a date, YYYYMMDD, or HHMM.
	d.pos++
	switch {
	case d.dateSeen && !d.yearSeen && !d.relSeen && (d.timeSeen || t.digits > 2):
		d.year, d.yearSeen = int(t.val), true
	case t.digits == 8 && !d.dateSeen:
		return d.setDate(int(t.val/10000), int(t.val/100%100), int(t.val%100), true)
	case t.digits <= 4 && !d.timeSeen:
		d.timeSeen = true
		if t.digits <= 2 {
			d.hour, d.min = int(t.val), 0
		} else {
			d.hour, d.min = int(t.val/100), int(t.val%100)
		}
		d.sec, d.nsec = 0, 0
		return d.meridianAndZone()
	default:
		return errBadDate
	}
	return nil
}

// timeItem reads H[:M[:S[.F]]] [am|pm] [zone].
func (d *dateParse) timeItem() error {
	if d.timeSeen {
		return errBadDate
	}
	d.timeSeen = true
	d.hour, d.min, d.sec, d.nsec = int(d.peek(0).val), 0, 0, 0
	d.pos++
	if d.peek(0).kind == ':' {
		m := d.peek(1)
		if m.kind != 'n' || m.sign != 0 {
			return errBadDate
		}
		d.min = int(m.val)
		d.pos += 2
		if d.peek(0).kind == ':' {
			s := d.peek(1)
			if s.kind != 'n' || s.sign != 0 {
				return errBadDate
			}
			d.sec = int(s.val)
			d.pos += 2
			if (d.peek(0).kind == '.' || d.peek(0).kind == ',') && d.peek(1).kind == 'n' && d.peek(1).sign == 0 {
				d.nsec = int(fracNanos(d.peek(1)))
				d.pos += 2
			}
		}
	}
	return d.meridianAndZone()
}

// meridianAndZone reads what may follow a time: am/pm and a zone offset.
func (d *dateParse) meridianAndZone() error {
	if d.isWord(0, "am", "pm") {
		pm := strings.HasPrefix(d.peek(0).word, "p")
		if d.hour < 1 || d.hour > 12 {
			return errBadDate
		}
		if d.hour == 12 {
			d.hour = 0
		}
		if pm {
			d.hour += 12
		}
		d.pos++
	}
	if t := d.peek(0); t.kind == 'n' && t.sign != 0 {
		return d.readOffset(0)
	}
	return nil
}

// readOffset reads a signed offset (+5, +0530, +05:30) added to base.
func (d *dateParse) readOffset(base int) error {
	if d.zoneSeen {
		return errBadDate
	}
	t := d.peek(0)
	d.pos++
	var h, m int
	switch {
	case d.peek(0).kind == ':' && d.peek(1).kind == 'n':
		h, m = int(t.val), int(d.peek(1).val)
		d.pos += 2
	case t.digits <= 2:
		h = int(t.val)
	case t.digits <= 4:
		h, m = int(t.val/100), int(t.val%100)
	default:
		return errBadDate
	}
	if h > 24 || m > 59 {
		return errBadDate
	}
	d.zoneSeen = true
	d.zoneOffset = base + t.sign*(h*3600+m*60)
	return nil
}

// wordItem reads an item that starts with a word.
func (d *dateParse) wordItem() error {
	w := d.peek(0).word
	if m, ok := dateMonths[w]; ok {
		// MONTH D [YEAR].
		d.pos++
		if d.peek(0).kind == '-' {
			d.pos++
		}
		day := d.peek(0)
		if day.kind != 'n' {
			return d.setDate(0, m, 1, false)
		}
		d.pos++
		if y := d.peek(0); y.kind == 'n' && y.sign == 0 && y.digits >= 3 && d.peek(1).kind != ':' {
			d.pos++
			return d.setDate(int(y.val), m, int(day.val), true)
		}
		if y := d.peek(0); y.kind == 'n' && y.sign < 0 {
			d.pos++
			return d.setDate(fixYear(y), m, int(day.val), true)
		}
		return d.setDate(0, m, int(day.val), false)
	}
	if _, ok := dateDays[w]; ok {
		return d.dayItem(0)
	}
	if off, ok := dateZones[w]; ok {
		if d.zoneSeen {
			return errBadDate
		}
		d.pos++
		if t := d.peek(0); t.kind == 'n' && t.sign != 0 {
			return d.readOffset(off)
		}
		d.zoneSeen, d.zoneOffset = true, off
		return nil
	}
	switch w {
	case "now", "today":
		d.pos++
		d.addRel(0, 0, 0, 0)
		return nil
	case "yesterday":
		d.pos++
		d.addRel(0, 0, -1, 0)
		return nil
	case "tomorrow":
		d.pos++
		d.addRel(0, 0, 1, 0)
		return nil
	case "ago":
		if d.lastRel == nil || !d.lastRelNegatable {
			return errBadDate
		}
		r := d.lastRel
		d.relY, d.relM, d.relD, d.relSec = d.relY-2*r.y, d.relM-2*r.m, d.relD-2*r.d, d.relSec-2*r.sec
		d.lastRelNegatable = false
		d.pos++
		return nil
	}
	if n, ok := dateOrdinals[w]; ok {
		next := d.peek(1)
		if next.kind == 'w' {
			if y, m, day, sec, ok := dateUnit(next.word); ok {
				d.pos += 2
				d.addRel(y*n, m*n, day*n, sec*int64(n))
				return nil
			}
			if _, ok := dateDays[next.word]; ok {
				d.pos++
				return d.dayItem(n)
			}
		}
		return errBadDate
	}
	if y, m, day, sec, ok := dateUnit(w); ok {
		d.pos++
		d.addRel(y, m, day, sec)
		return nil
	}
	return errBadDate
}

// dayItem reads a day name (the ordinal, if any, is already read).
func (d *dateParse) dayItem(ordinal int) error {
	if d.daySeen {
		return errBadDate
	}
	d.daySeen = true
	d.dayOrdinal, d.weekday = ordinal, dateDays[d.peek(0).word]
	d.pos++
	if d.peek(0).kind == '.' {
		d.pos++
	}
	return nil
}

// addRel records one relative item.
func (d *dateParse) addRel(y, m, day int, sec int64) {
	d.relSeen = true
	d.relY += y
	d.relM += m
	d.relD += day
	d.relSec += sec
	d.lastRel = &dateRel{y, m, day, sec}
	d.lastRelNegatable = true
}

// resolve turns the items into an instant.
func (d *dateParse) resolve(now time.Time) (time.Time, error) {
	if d.epoch != nil {
		return *d.epoch, nil
	}
	now = now.UTC()
	year, month, day := now.Date()
	if d.dateSeen {
		month, day = time.Month(d.month), d.day
		if d.yearSeen {
			year = d.year
		}
		if d.month < 1 || d.month > 12 || d.day < 1 || d.day > daysIn(time.Month(d.month), year) {
			return time.Time{}, errBadDate
		}
	}
	hour, min, sec, nsec := now.Hour(), now.Minute(), now.Second(), now.Nanosecond()
	switch {
	case d.timeSeen:
		if d.hour > 23 || d.min > 59 || d.sec > 60 {
			return time.Time{}, errBadDate
		}
		hour, min, sec, nsec = d.hour, d.min, d.sec, d.nsec
	case d.dateSeen || d.daySeen || !d.relSeen:
		// A date or a day without a time is midnight; so is an empty
		// string (GNU: today at 00:00).
		hour, min, sec, nsec = 0, 0, 0, 0
	}
	t := time.Date(year, month, day, hour, min, sec, nsec, time.UTC)
	if d.daySeen && !d.dateSeen {
		wd := int(t.Weekday())
		delta := (d.weekday - wd + 7) % 7
		ord := d.dayOrdinal
		if ord > 0 && wd != d.weekday {
			ord--
		}
		t = t.AddDate(0, 0, delta+7*ord)
	}
	if d.zoneSeen {
		t = t.Add(-time.Duration(d.zoneOffset) * time.Second)
	}
	t = t.AddDate(d.relY, d.relM, d.relD)
	t = t.Add(time.Duration(d.relSec) * time.Second)
	return t, nil
}

// daysIn is the number of days of month m in year y.
func daysIn(m time.Month, y int) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
