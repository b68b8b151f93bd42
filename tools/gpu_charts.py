#!/usr/bin/env python3
"""Draws an exercise's chart from its CSV with matplotlib, for machines without gnuplot (the GPU
machine that tools/gpu_check.sh runs on has matplotlib, not gnuplot). The CSVs are the exercise
programs' (demos/exercises/chart.cpp): a bar chart's header is "case,<value>,low,high" (a median
with its 10th-90th percentile whiskers), any other CSV is a line chart of every column against the
first. Exits non-zero, drawing nothing, where matplotlib is missing.

  python3 tools/gpu_charts.py CSV PNG TITLE X_LABEL Y_LABEL
"""
import csv
import sys


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    source, target, title, x_label, y_label = sys.argv[1:]
    try:
        import matplotlib
    except ImportError:
        sys.exit("gpu_charts: matplotlib is not installed")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(source, newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], [row for row in rows[1:] if row]
    figure, axes = plt.subplots(figsize=(9, 5.4), dpi=100)
    if len(header) == 4 and header[0] == "case" and header[2:] == ["low", "high"]:
        labels = [row[0] for row in rows]
        values, lows, highs = ([float(row[i]) for row in rows] for i in (1, 2, 3))
        whiskers = [[v - low for v, low in zip(values, lows)], [high - v for v, high in zip(values, highs)]]
        positions = range(len(labels))  # by position: a label may come twice (float32 beside each autocast)
        axes.bar(positions, values, yerr=whiskers, capsize=6, alpha=0.7, edgecolor="black",
                 label=f"{header[1]} (bar: median; whisker: 10th to 90th percentile)")
        axes.set_xticks(list(positions), labels, rotation=20, ha="right")
        if min(values) > 0 and max(values) / min(values) > 50:
            axes.set_yscale("log")  # a CPU's and a GPU's times side by side
        axes.legend(loc="upper right")
    else:
        x = [float(row[0]) for row in rows]
        for column in range(1, len(header)):
            axes.plot(x, [float(row[column]) for row in rows], marker="o", linewidth=2, label=header[column])
        axes.legend(loc="upper left")
    axes.set_title(title)
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    axes.grid(axis="y")
    figure.tight_layout()
    figure.savefig(target)
    print(f"  wrote {target}")


if __name__ == "__main__":
    main()
