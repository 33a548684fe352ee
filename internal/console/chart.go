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
	values := make([]float64, n)
	titles := make([]string, n)
	for i, u := range uses {
		values[i] = float64(u.Requests)
		titles[i] = fmt.Sprintf("%s: %s", dayName(u), requests(u.Requests))
	}
	c.Bars = layBars(values, float64(c.Peak), titles, chartWidth, chartHeight, chartGap)
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

// layBars lays out a bar a value in a box of width × height, scaled to
// peak, gap apart at most (less when the bars are narrow); a value of 0
// is a thin mark on the baseline, any other at least a little taller.
func layBars(values []float64, peak float64, titles []string, width, height, gap int) []bar {
	n := len(values)
	if n == 0 {
		return nil
	}
	slot := float64(width) / float64(n)
	g := min(float64(gap), slot*0.25)
	if n == 1 {
		g = 0
	}
	w := (float64(width) - g*float64(n-1)) / float64(n)
	bars := make([]bar, n)
	for i, v := range values {
		h := float64(emptyHeight)
		if v > 0 && peak > 0 {
			h = max(float64(emptyHeight)+1, float64(height)*v/peak)
		}
		bars[i] = bar{X: num(float64(i) * (w + g)), Y: num(float64(height) - h), W: num(w), H: num(h), Title: titles[i], Empty: v == 0}
	}
	return bars
}
