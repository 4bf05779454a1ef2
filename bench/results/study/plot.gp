set terminal svg size 900,520 font 'sans,12'
set grid ytics
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.8
set xtics rotate by -25
set output 'b2_makespan.svg'
set title 'B2: makespan per strategy (bars) vs the ideal bound (line)'
set ylabel 'seconds (real, compressed time)'
set yrange [0:*]
plot 'makespan.dat' using 2:xtic(1) title 'makespan', '' using 0:3 with linespoints lw 2 title 'ideal bound'
set output 'b2_batch_fill.svg'
set title 'B2: OCR batch fill (pages per batch / cap)'
set ylabel '%'
set yrange [0:105]
plot 'makespan.dat' using 4:xtic(1) title 'batch fill'
set output 'b2_peers.svg'
set yrange [0:*]
set title 'B2 peers: makespan (bars) vs ideal bound (line)'
set ylabel 'seconds (real, compressed time)'
plot 'peers.dat' using 2:xtic(1) title 'makespan', '' using 0:3 with linespoints lw 2 title 'ideal bound'
set style data linespoints
unset style
set output 'b2_scaling.svg'
set title 'B2 strong scaling: speedup x 4 (4 actors = 4)'
set xlabel 'actors per stage'
set ylabel 'effective actors'
set logscale xy 2
set xrange [3:80]
set yrange [3:80]
set key left top
plot 'scaling_flat-regroup.dat' using 1:3 with linespoints lw 2 title 'flat-regroup', 'scaling_lineage.dat' using 1:3 with linespoints lw 2 title 'lineage', x with lines dt 2 title 'linear'
unset logscale
unset xrange
unset yrange
set output 'b2_completion.svg'
set key right bottom
set title 'B2: roots committed over time (parent-local commit vs regroup barrier)'
set xlabel 'seconds since start'
set ylabel '% of roots committed'
set yrange [0:100]
plot 'completion_lineage.dat' using 1:2 with lines lw 2 title 'lineage', 'completion_rop-pipeline.dat' using 1:2 with lines lw 2 title 'rop-pipeline', 'completion_single-parent.dat' using 1:2 with lines lw 2 title 'single-parent', 'completion_tbb-lineage.dat' using 1:2 with lines lw 2 title 'tbb-lineage', 'completion_flat-regroup.dat' using 1:2 with lines lw 2 title 'flat-regroup', 'completion_per-parent.dat' using 1:2 with lines lw 2 title 'per-parent'
