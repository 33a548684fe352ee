package console

import (
	"fmt"
	"strconv"

	"github.com/adcamp/adcamp/internal/service"
)

// chart is a small bar chart of a credential's requests per day, drawn
// on the server as SVG: one bar a day, scaled to the busiest day. The
// numbers are in the bars' titles and in the chart's accessible label.
type chart struct {
	Width, Height int
	Bars          []bar
	Total, Peak   int64
	First, Last   string // the first and last days, for the axis
	Label         string // what the chart says, for screen readers
}

// bar is one day's bar, its geometry written for the SVG.
type bar struct {
	X, Y, W, H string
	Title      string
	Empty      bool // no request that day: a thin mark on the baseline
}

const (
	chartWidth  = 280
	chartHeight = 56
	chartGap    = 4
	emptyHeight = 2
)

func newChart(uses []service.DayUses) chart {
	c := chart{Width: chartWidth, Height: chartHeight}
	for _, u := range uses {
		c.Total += u.Requests
		c.Peak = max(c.Peak, u.Requests)
	}
	n := len(uses)
	if n == 0 {
		return c
	}
	w := (float64(chartWidth) - float64(chartGap*(n-1))) / float64(n)
	for i, u := range uses {
		h := float64(emptyHeight)
		if u.Requests > 0 {
			h = max(float64(emptyHeight)+1, float64(chartHeight)*float64(u.Requests)/float64(c.Peak))
		}
		c.Bars = append(c.Bars, bar{
			X: num(float64(i) * (w + chartGap)), Y: num(float64(chartHeight) - h), W: num(w), H: num(h),
			Title: fmt.Sprintf("%s: %s", dayName(u), requests(u.Requests)),
			Empty: u.Requests == 0,
		})
	}
	c.First, c.Last = dayName(uses[0]), dayName(uses[n-1])
	c.Label = fmt.Sprintf("Requests per day from %s to %s: %s in all, at most %s in a day.",
		c.First, c.Last, requests(c.Total), strconv.FormatInt(c.Peak, 10))
	return c
}

func dayName(u service.DayUses) string { return u.Day.String() }

func requests(n int64) string {
	if n == 1 {
		return "1 request"
	}
	return strconv.FormatInt(n, 10) + " requests"
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
